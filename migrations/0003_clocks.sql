-- Time controls, deadlines, absent players and vacations.

-- NULL: no time limit.
ALTER TABLE games ADD COLUMN time_control jsonb;

ALTER TABLE game_seats
    -- active: the user plays; abandoned: after too many timeouts the sensible bot plays the
    -- seat until the user returns; forfeited: the bot plays it out and the seat ranks last.
    ADD COLUMN state text NOT NULL DEFAULT 'active'
        CHECK (state IN ('active', 'abandoned', 'forfeited')),
    -- consecutive timeouts
    ADD COLUMN timeouts integer NOT NULL DEFAULT 0,
    -- what is left of the seat's time bank, in seconds (NULL: no bank)
    ADD COLUMN bank_secs bigint;

-- One armed clock per pending seat (seat -1: a rules timer such as a negotiation deadline).
-- Armed and disarmed in the same statement that appends a game's events; consumed by the
-- deadline worker of any instance, which leases a row before acting on it.
CREATE TABLE deadlines (
    game_id         uuid NOT NULL REFERENCES games (id),
    seat            smallint NOT NULL,
    kind            text NOT NULL CHECK (kind IN ('turn', 'bot', 'timer')),
    -- when the seat's turn began, after any vacation (for the time bank)
    turn_started_at timestamptz NOT NULL,
    due_at          timestamptz NOT NULL,
    remind_at       timestamptz,
    reminded        boolean NOT NULL DEFAULT false,
    -- a rules timer's key: it still applies only if the rules still name it
    timer_key       text,
    -- a worker is acting on the row until then
    leased_until    timestamptz,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX deadlines_due ON deadlines (due_at);
CREATE INDEX deadlines_remind ON deadlines (remind_at) WHERE NOT reminded;

-- A user's vacations: their clocks in every game stand still.
CREATE TABLE vacations (
    user_id   uuid NOT NULL REFERENCES users (id),
    starts_at timestamptz NOT NULL,
    ends_at   timestamptz NOT NULL,
    PRIMARY KEY (user_id, starts_at),
    CHECK (ends_at > starts_at)
);
