-- Usernames and email addresses are unique by their canonical caseless form: Unicode full
-- case folding and NFC, so that `straße`/`STRASSE` and `Ü`/`ü` are one name. The server
-- computes these keys (src/auth/identity.rs): lower() cannot, as it maps one letter to one
-- letter and depends on the database's locale (in a C locale it changes only ASCII).
--
-- username_key and email_key keep their unique constraints (users_username_key_key,
-- users_email_key_key). This column says by which version of the folding a row's keys were
-- made; rows made before are 0, and the server recomputes their keys right after migrating
-- (store::users::backfill_identity_keys), where it can fold exactly.
ALTER TABLE users ADD COLUMN identity_keys_version smallint NOT NULL DEFAULT 0;
