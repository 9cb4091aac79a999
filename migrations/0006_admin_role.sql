-- Admin rights are a role stored with the account, granted and revoked only by the operator
-- (`kontor admin grant|revoke <user>`). They used to come from usernames in
-- KONTOR_ADMIN_USERS, so whoever registered a listed name that had no account yet became an
-- admin. A constant default makes this a change of the catalogue only: no row is rewritten.
ALTER TABLE users ADD COLUMN is_admin boolean NOT NULL DEFAULT false;
