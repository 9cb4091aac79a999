-- Profiles (display name, language, time zone), account deletion, and blocking.

ALTER TABLE users
    -- shown beside the username; NULL: none. The server checks its text (1–40 characters).
    ADD COLUMN display_name text,
    -- the language of every mail to the user
    ADD COLUMN language text NOT NULL DEFAULT 'en' CHECK (language IN ('en', 'ja')),
    -- an IANA time zone name (checked by the server): digests and deadlines in mails
    ADD COLUMN time_zone text NOT NULL DEFAULT 'UTC',
    -- set when the user deleted the account: the row stays (seats and the log refer to it) under
    -- a placeholder username, with no email address and no password
    ADD COLUMN deleted_at timestamptz;

-- A deleted account keeps no address and no password hash. Its username_key and email_key are
-- replaced by keys no identity folds to, so that the name and the address are free again.
ALTER TABLE users ALTER COLUMN email DROP NOT NULL;
ALTER TABLE users ALTER COLUMN password_hash DROP NOT NULL;
ALTER TABLE users ADD CONSTRAINT users_deleted_has_no_secrets
    CHECK (deleted_at IS NULL OR (email IS NULL AND password_hash IS NULL));
ALTER TABLE users ADD CONSTRAINT users_live_has_credentials
    CHECK (deleted_at IS NOT NULL OR (email IS NOT NULL AND password_hash IS NOT NULL));

-- The numbers of the placeholders (`deleted-player-17`).
CREATE SEQUENCE deleted_player_numbers;

-- Who blocked whom. Stored one way; it works both ways for invitations and joining.
CREATE TABLE user_blocks (
    blocker_id uuid NOT NULL REFERENCES users (id),
    blocked_id uuid NOT NULL REFERENCES users (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (blocker_id, blocked_id),
    CHECK (blocker_id <> blocked_id)
);
CREATE INDEX user_blocks_blocked ON user_blocks (blocked_id);

-- "A player left": the other players of a game whose player deleted the account.
ALTER TABLE notification_prefs
    ADD COLUMN player_left notice_delivery NOT NULL DEFAULT 'immediately';
-- The kinds of mail, with those of the account mails (verification, reset, changes).
ALTER TABLE mail_outbox DROP CONSTRAINT IF EXISTS mail_outbox_kind_check;
ALTER TABLE mail_outbox ADD CONSTRAINT mail_outbox_kind_check CHECK (kind IN
    ('your_turn', 'reminder', 'invited', 'game_started', 'game_over', 'digest', 'player_left',
     'verify_email', 'password_reset', 'email_changed', 'password_changed'));
