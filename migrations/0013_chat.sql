-- Table talk (issue 22): a stream beside each game's log, not in it. Messages are keyed by the
-- game, stamped with the game's version when written, and append-only like the log; writing
-- one never touches the game's head row, its version or its state cache. A moderator's hiding
-- is a row of its own (chat_hidden), so the text stays for the record.

CREATE TABLE chat_messages (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    game_id         uuid NOT NULL REFERENCES games (id),
    -- table, spectators, or private:A-B between seats A < B
    channel         text NOT NULL CHECK (channel ~ '^(table|spectators|private:[0-5]-[0-5])$'),
    author_id       uuid NOT NULL REFERENCES users (id),
    -- the author's seat; NULL for a spectator
    author_seat     smallint,
    body            text NOT NULL CHECK (char_length(body) BETWEEN 1 AND 500),
    -- the game's version when the message was written (a replay interleaves chat with moves)
    at_version      bigint NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    -- the sender's Idempotency-Key and a digest of what was sent with it: a retry gets the
    -- same message, never a second one
    idempotency_key text NOT NULL,
    request_hash    bytea NOT NULL,
    UNIQUE (author_id, game_id, idempotency_key)
);
CREATE INDEX chat_messages_by_channel ON chat_messages (game_id, channel, id);
-- the rate limits count an author's recent messages in a game
CREATE INDEX chat_messages_by_author ON chat_messages (author_id, game_id, created_at);

CREATE FUNCTION chat_is_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: % is not allowed', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;
CREATE TRIGGER chat_messages_no_update_or_delete
    BEFORE UPDATE OR DELETE ON chat_messages
    FOR EACH ROW EXECUTE FUNCTION chat_is_append_only();
CREATE TRIGGER chat_messages_no_truncate
    BEFORE TRUNCATE ON chat_messages
    FOR EACH STATEMENT EXECUTE FUNCTION chat_is_append_only();
REVOKE UPDATE, DELETE, TRUNCATE ON chat_messages FROM PUBLIC;

-- A message a moderator hid: shown as "removed by a moderator" to everyone but admins.
CREATE TABLE chat_hidden (
    message_id bigint PRIMARY KEY REFERENCES chat_messages (id),
    -- NULL: the operator at the command line
    hidden_by  uuid REFERENCES users (id),
    reason     text NOT NULL,
    hidden_at  timestamptz NOT NULL DEFAULT now()
);

-- Reports of messages by their readers; resolved when a moderator hides the message or
-- dismisses the report.
CREATE TABLE chat_reports (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    message_id  bigint NOT NULL REFERENCES chat_messages (id),
    reporter_id uuid NOT NULL REFERENCES users (id),
    reason      text NOT NULL CHECK (reason IN ('spam', 'abuse', 'cheating', 'other')),
    note        text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    resolved_at timestamptz,
    resolution  text CHECK (resolution IN ('hidden', 'dismissed')),
    UNIQUE (message_id, reporter_id)
);
CREATE INDEX chat_reports_open ON chat_reports (created_at) WHERE resolved_at IS NULL;

-- Accounts kept out of every chat until `until` (or until lifted), with the reason.
CREATE TABLE chat_mutes (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id    uuid NOT NULL REFERENCES users (id),
    until      timestamptz NOT NULL,
    reason     text NOT NULL,
    -- NULL: the operator at the command line
    muted_by   uuid REFERENCES users (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    lifted_at  timestamptz
);
CREATE INDEX chat_mutes_by_user ON chat_mutes (user_id, until);

-- How far each reader has read each channel of a game (markers only move forward).
CREATE TABLE chat_read_markers (
    user_id uuid NOT NULL REFERENCES users (id),
    game_id uuid NOT NULL REFERENCES games (id),
    channel text NOT NULL,
    up_to   bigint NOT NULL,
    PRIMARY KEY (user_id, game_id, channel)
);

-- The spectators channel as its game's creator left it (no row: open).
CREATE TABLE chat_channel_settings (
    game_id         uuid PRIMARY KEY REFERENCES games (id),
    spectators_open boolean NOT NULL,
    changed_at      timestamptz NOT NULL DEFAULT now()
);

-- Mentions (@username) notify the player, as they choose.
ALTER TABLE notification_prefs
    ADD COLUMN chat_mention notice_delivery NOT NULL DEFAULT 'immediately';
ALTER TABLE mail_outbox DROP CONSTRAINT IF EXISTS mail_outbox_kind_check;
ALTER TABLE mail_outbox ADD CONSTRAINT mail_outbox_kind_check CHECK (kind IN
    ('your_turn', 'reminder', 'invited', 'game_started', 'game_over', 'digest', 'player_left',
     'verify_email', 'password_reset', 'email_changed', 'password_changed', 'chat_mention'));
