-- Past states kept, not only the latest: one row per game at every multiple of 32 versions
-- (`events::SNAPSHOT_EVERY`) and at the end, so that a view of any past version folds at
-- most 32 versions from the greatest snapshot at or below it instead of the whole log.
-- `game_state` stays the one-row-per-game cache of the latest state that the commands read.
-- A cache like it: rebuilt from the log by `kontor rebuild`.
CREATE TABLE game_snapshots (
    game_id       uuid NOT NULL REFERENCES games (id),
    version       bigint NOT NULL,
    rules_version integer NOT NULL,
    state         text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, version)
) WITH (toast_tuple_target = 8160);

-- The latest states are the first rungs; `kontor rebuild` fills in the past ones of games
-- played before this migration.
INSERT INTO game_snapshots (game_id, version, rules_version, state)
SELECT game_id, version, rules_version, state FROM game_state;
