-- Correspondence tournaments (issue 24). A tournament is a platform record beside its games:
-- the settings, the recorded seed, who entered (in join order) and who withdrew when, and per
-- round the tables with the games the server created for them. Everything else (points,
-- standings, the next round's tables) is derived from these facts and the games' outcomes
-- (`service::tournaments::derive`), so it can be recomputed from the logs.

CREATE TABLE tournaments (
    id              uuid PRIMARY KEY,
    name            text NOT NULL,
    kind            text NOT NULL,
    format          text NOT NULL CHECK (format IN ('swiss', 'round_robin')),
    seats_per_table smallint NOT NULL CHECK (seats_per_table BETWEEN 3 AND 6),
    rounds          smallint NOT NULL CHECK (rounds BETWEEN 1 AND 20),
    rated           boolean NOT NULL,
    -- the games' options, complete (the rules' and the platform's, `rated` among them)
    options         jsonb NOT NULL,
    time_control    jsonb,
    -- how long a round may last before its unfinished games are adjudicated
    round_hours     integer NOT NULL CHECK (round_hours BETWEEN 1 AND 8760),
    entry_closes_at timestamptz NOT NULL,
    max_players     integer NOT NULL CHECK (max_players BETWEEN 3 AND 1000),
    organiser       uuid NOT NULL REFERENCES users (id),
    -- the tournament's own randomness: the seeded order that ends every tie-break
    seed            bytea NOT NULL,
    -- entry (players join); running; finished (final standings); cancelled (too few players)
    status          text NOT NULL DEFAULT 'entry'
                    CHECK (status IN ('entry', 'running', 'finished', 'cancelled')),
    created_at      timestamptz NOT NULL,
    started_at      timestamptz,
    ended_at        timestamptz,
    CHECK ((status = 'entry') = (started_at IS NULL AND ended_at IS NULL) OR status = 'cancelled')
);
CREATE INDEX tournaments_by_status ON tournaments (status, entry_closes_at, id);

CREATE TABLE tournament_players (
    tournament_id   uuid NOT NULL REFERENCES tournaments (id),
    user_id         uuid NOT NULL REFERENCES users (id),
    -- the join order
    joined_seq      bigint GENERATED ALWAYS AS IDENTITY,
    joined_at       timestamptz NOT NULL,
    withdrawn_at    timestamptz,
    -- the round that was running when the player withdrew: they score nothing from it on
    withdrawn_round smallint,
    CHECK ((withdrawn_at IS NULL) = (withdrawn_round IS NULL)),
    PRIMARY KEY (tournament_id, user_id)
);
CREATE INDEX tournament_players_user ON tournament_players (user_id);

CREATE TABLE tournament_rounds (
    tournament_id uuid NOT NULL REFERENCES tournaments (id),
    number        smallint NOT NULL CHECK (number >= 1),
    -- running; finished (every game over, or adjudicated at the deadline)
    status        text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'finished')),
    started_at    timestamptz NOT NULL,
    deadline      timestamptz NOT NULL,
    ended_at      timestamptz,
    PRIMARY KEY (tournament_id, number)
);
CREATE INDEX tournament_rounds_due ON tournament_rounds (deadline) WHERE status = 'running';

CREATE TABLE tournament_tables (
    tournament_id uuid NOT NULL,
    round         smallint NOT NULL,
    table_no      smallint NOT NULL,
    game_id       uuid NOT NULL UNIQUE REFERENCES games (id),
    -- the players in seat order (seat i of the game is seats[i+1])
    seats         uuid[] NOT NULL,
    -- once the round ended: the final ranks per seat from the game's outcome, or null when
    -- the game was still running at the round's deadline (adjudicated: it goes on but no
    -- longer counts)
    ranks         smallint[],
    adjudicated   boolean NOT NULL DEFAULT false,
    PRIMARY KEY (tournament_id, round, table_no),
    FOREIGN KEY (tournament_id, round) REFERENCES tournament_rounds (tournament_id, number)
);

-- Tournament mails, as each player chooses.
ALTER TABLE notification_prefs
    ADD COLUMN tournament_started notice_delivery NOT NULL DEFAULT 'immediately',
    ADD COLUMN tournament_round notice_delivery NOT NULL DEFAULT 'immediately',
    ADD COLUMN tournament_finished notice_delivery NOT NULL DEFAULT 'immediately';
ALTER TABLE mail_outbox DROP CONSTRAINT IF EXISTS mail_outbox_kind_check;
ALTER TABLE mail_outbox ADD CONSTRAINT mail_outbox_kind_check CHECK (kind IN
    ('your_turn', 'reminder', 'invited', 'game_started', 'game_over', 'digest', 'player_left',
     'verify_email', 'password_reset', 'email_changed', 'password_changed', 'chat_mention',
     'rematch_offered', 'undo_requested', 'tournament_started', 'tournament_round',
     'tournament_finished'));
