-- Accounts, tokens, games and the append-only event log.

CREATE TABLE users (
    id            uuid PRIMARY KEY,
    username      text NOT NULL,
    -- lower-cased username: names are unique regardless of case
    username_key  text NOT NULL UNIQUE,
    email         text NOT NULL,
    email_key     text NOT NULL UNIQUE,
    password_hash text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE refresh_tokens (
    id          uuid PRIMARY KEY,
    user_id     uuid NOT NULL REFERENCES users (id),
    -- every token issued by refreshing descends from one login: its family
    family_id   uuid NOT NULL,
    token_hash  bytea NOT NULL UNIQUE,
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    revoked_at  timestamptz
);
CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);

CREATE TABLE api_tokens (
    id           uuid PRIMARY KEY,
    user_id      uuid NOT NULL REFERENCES users (id),
    name         text NOT NULL,
    token_hash   bytea NOT NULL UNIQUE,
    -- the first characters of the token, so a person can recognise it in a list
    prefix       text NOT NULL,
    scopes       text[] NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz,
    last_used_at timestamptz,
    revoked_at   timestamptz
);
CREATE INDEX api_tokens_user ON api_tokens (user_id);

-- Failed logins per subject ('user:<name>' or 'ip:<address>') in the current window.
CREATE TABLE login_failures (
    subject       text PRIMARY KEY,
    failures      integer NOT NULL,
    window_start  timestamptz NOT NULL
);

CREATE TABLE games (
    id              uuid PRIMARY KEY,
    kind            text NOT NULL,
    rules_version   integer NOT NULL,
    options         jsonb NOT NULL,
    seat_count      smallint NOT NULL,
    visibility      text NOT NULL CHECK (visibility IN ('public', 'private')),
    status          text NOT NULL CHECK (status IN ('open', 'active', 'finished', 'cancelled')),
    -- the sequence number of the last event (0 before the start)
    version         bigint NOT NULL DEFAULT 0,
    created_by      uuid NOT NULL REFERENCES users (id),
    -- secret until the game ends; only its SHA-256 (the commitment) is published before
    seed            bytea NOT NULL,
    seed_commitment text NOT NULL,
    -- seat nonces in seat order, fixed at the start
    nonces          text[],
    -- seats that must act now, for "my turn" lists
    pending_seats   smallint[] NOT NULL DEFAULT '{}',
    outcome         jsonb,
    -- an imported copy of another game's log, for analysis; never rated
    sandbox         boolean NOT NULL DEFAULT false,
    imported_from   uuid,
    created_at      timestamptz NOT NULL DEFAULT now(),
    started_at      timestamptz,
    finished_at     timestamptz,
    -- when the current pending seats began to be pending
    turn_started_at timestamptz
);
-- Every action updates the head row: leave room in each page so updates stay HOT.
ALTER TABLE games SET (fillfactor = 70);
CREATE INDEX games_open ON games (created_at DESC, id) WHERE status = 'open';
CREATE INDEX games_finished ON games (finished_at DESC, id) WHERE status = 'finished';

CREATE TABLE game_seats (
    game_id    uuid NOT NULL REFERENCES games (id),
    seat       smallint NOT NULL,
    user_id    uuid NOT NULL REFERENCES users (id),
    nonce      text NOT NULL,
    joined_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, seat),
    UNIQUE (game_id, user_id)
);
CREATE INDEX game_seats_user ON game_seats (user_id);

CREATE TABLE game_invitations (
    game_id    uuid NOT NULL REFERENCES games (id),
    user_id    uuid NOT NULL REFERENCES users (id),
    invited_by uuid NOT NULL REFERENCES users (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, user_id)
);

-- The truth: every game's append-only log.
CREATE TABLE game_events (
    game_id        uuid NOT NULL REFERENCES games (id),
    seq            bigint NOT NULL,
    type           text NOT NULL,
    schema_version integer NOT NULL,
    payload        jsonb NOT NULL,
    -- NULL: every viewer sees the event as stored; otherwise the seats that do
    -- (everyone else sees the rules engine's redacted copy, or nothing)
    audience       smallint[],
    -- the seat whose command caused the event; NULL for the platform or a rules timer
    actor          smallint,
    command_id     uuid,
    created_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, seq)
);

CREATE FUNCTION game_events_are_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'game_events is append-only: % is not allowed', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;
CREATE TRIGGER game_events_no_update_or_delete
    BEFORE UPDATE OR DELETE ON game_events
    FOR EACH ROW EXECUTE FUNCTION game_events_are_append_only();
CREATE TRIGGER game_events_no_truncate
    BEFORE TRUNCATE ON game_events
    FOR EACH STATEMENT EXECUTE FUNCTION game_events_are_append_only();
REVOKE UPDATE, DELETE, TRUNCATE ON game_events FROM PUBLIC;

-- Every accepted command with its idempotency key and the response it got.
CREATE TABLE game_commands (
    id              uuid PRIMARY KEY,
    game_id         uuid NOT NULL REFERENCES games (id),
    user_id         uuid REFERENCES users (id),
    idempotency_key text,
    request_hash    bytea,
    seat            smallint,
    command         jsonb NOT NULL,
    first_seq       bigint NOT NULL,
    last_seq        bigint NOT NULL,
    response_status smallint NOT NULL,
    response        jsonb NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (game_id, user_id, idempotency_key)
);

-- The latest state of each game: a cache, rebuilt from the log whenever it disagrees.
CREATE TABLE game_state (
    game_id       uuid PRIMARY KEY REFERENCES games (id),
    version       bigint NOT NULL,
    rules_version integer NOT NULL,
    state         jsonb NOT NULL,
    updated_at    timestamptz NOT NULL DEFAULT now()
) WITH (fillfactor = 50);
