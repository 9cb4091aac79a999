-- Accounts people can keep: verified addresses, single-use links by mail (verification,
-- password reset), and logins (refresh-token families) a user can list and end.

-- When the account's current address was shown to reach its owner (a verification link or a
-- password reset link was used). NULL: not verified; game notices are not mailed to it.
ALTER TABLE users ADD COLUMN email_verified_at timestamptz;
-- Accounts that exist when this migration runs count as verified: they have been getting
-- their turn mail all along, and an upgrade must not silence it.
UPDATE users SET email_verified_at = created_at;

-- Single-use tokens sent by mail, stored only as their SHA-256. `email` is the address the
-- link was mailed to: for `verify_email` the address it verifies (the account's own, or the
-- new one of a pending change of address, which takes effect when the link is used).
CREATE TABLE mail_tokens (
    id            uuid PRIMARY KEY,
    user_id       uuid NOT NULL REFERENCES users (id),
    purpose       text NOT NULL CHECK (purpose IN ('verify_email', 'reset_password')),
    email         text NOT NULL,
    token_hash    bytea NOT NULL UNIQUE,
    created_at    timestamptz NOT NULL,
    expires_at    timestamptz NOT NULL,
    used_at       timestamptz,
    -- a newer token of the same purpose was issued before this one was used
    superseded_at timestamptz
);
CREATE INDEX mail_tokens_open ON mail_tokens (user_id, purpose)
    WHERE used_at IS NULL AND superseded_at IS NULL;

-- One row per login (a refresh-token family): when it began, when it was last refreshed and
-- the client that made it (its User-Agent, truncated). A login is active while one of its
-- refresh tokens is neither revoked nor expired.
CREATE TABLE login_sessions (
    id           uuid PRIMARY KEY,
    user_id      uuid NOT NULL REFERENCES users (id),
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz NOT NULL DEFAULT now(),
    user_agent   text
);
CREATE INDEX login_sessions_user ON login_sessions (user_id);
-- The logins that exist already, from their refresh tokens (their client is unknown).
INSERT INTO login_sessions (id, user_id, created_at, last_used_at)
SELECT family_id, min(user_id::text)::uuid, min(created_at), max(created_at)
  FROM refresh_tokens GROUP BY family_id;

-- Game notices to an address that is not verified are skipped (skip_reason 'unverified').
-- The mails of the account itself. They are transactional: never held for the digest, not
-- subject to notification preferences, and sent to unverified addresses too.
ALTER TABLE mail_outbox DROP CONSTRAINT mail_outbox_kind_check;
ALTER TABLE mail_outbox ADD CONSTRAINT mail_outbox_kind_check CHECK (kind IN
    ('your_turn', 'reminder', 'invited', 'game_started', 'game_over', 'digest',
     'verify_email', 'password_reset', 'email_changed', 'password_changed'));
