-- Ratings (issue 24): a projection of finished games. The rating worker judges each finished
-- game once, from its log alone (rated or not, and why; the ranks), in the order it finds them
-- (`seq`), and in the same transaction records each seat's update (before and after, for audit)
-- and the player's current rating per game kind. `kontor ratings rebuild` recomputes all of it
-- from the logs in `seq` order and must find the same values.

-- one row per finished game the rating worker has judged, in the order it judged them
CREATE TABLE rating_games (
    seq         bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    game_id     uuid PRIMARY KEY REFERENCES games (id),
    kind        text NOT NULL,
    rated       boolean NOT NULL,
    -- why not rated (null when rated): 'not_rated_table','bot_seat','undo_consent','sandbox','first_round'
    reason      text,
    finished_at timestamptz NOT NULL,
    judged_at   timestamptz NOT NULL
);
-- one row per seat of a rated game: the update, for audit
CREATE TABLE rating_updates (
    game_id      uuid NOT NULL REFERENCES rating_games (game_id),
    seat         smallint NOT NULL,
    user_id      uuid NOT NULL REFERENCES users (id),
    kind         text NOT NULL,
    rank         smallint NOT NULL,
    mu_before    double precision NOT NULL,
    sigma_before double precision NOT NULL,
    mu_after     double precision NOT NULL,
    sigma_after  double precision NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX rating_updates_user ON rating_updates (user_id, kind);
-- the current rating per player and kind (a projection of rating_updates)
CREATE TABLE ratings (
    user_id  uuid NOT NULL REFERENCES users (id),
    kind     text NOT NULL,
    mu       double precision NOT NULL,
    sigma    double precision NOT NULL,
    games    integer NOT NULL,
    -- the conservative display value, kept for the leaderboard's order and index
    rating   integer NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, kind)
);
CREATE INDEX ratings_board ON ratings (kind, rating DESC, user_id);

-- The finished games the rating worker has yet to judge, so that finding the next one costs an
-- index probe however many games were judged before (an anti-join of `games` with
-- `rating_games` would scan every judged game each time). Filled by a trigger as a game
-- finishes (an imported sandbox is inserted finished), emptied by the worker in the same
-- transaction as the game's `rating_games` row.
CREATE TABLE rating_pending (
    game_id     uuid PRIMARY KEY REFERENCES games (id),
    finished_at timestamptz NOT NULL
);
CREATE INDEX rating_pending_order ON rating_pending (finished_at, game_id);

CREATE FUNCTION rating_pending_on_finish() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.status = 'finished' AND (TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM 'finished') THEN
        INSERT INTO rating_pending (game_id, finished_at)
        VALUES (NEW.id, coalesce(NEW.finished_at, now()))
        ON CONFLICT DO NOTHING;
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER games_rating_pending
    AFTER INSERT OR UPDATE OF status ON games
    -- every action writes the head row's status: call the function only for a finished game
    FOR EACH ROW WHEN (NEW.status = 'finished') EXECUTE FUNCTION rating_pending_on_finish();

-- The games that finished before this migration.
INSERT INTO rating_pending (game_id, finished_at)
SELECT id, coalesce(finished_at, created_at) FROM games WHERE status = 'finished';
