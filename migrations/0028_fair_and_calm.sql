-- Issue 36, "fair and calm under abuse".

-- Ratings: the version of the judge that judged each game (`ratings::JUDGE_VERSION`). The
-- games judged before this migration were judged by the first judge; the rating worker
-- rebuilds every judgement of an older version before it judges a new game, so that the
-- ratings stay what the current judge makes of the whole history. A new reason for an
-- unrated game: 'abandoned' (no seat was played to the end by its player).
ALTER TABLE rating_games ADD COLUMN judge_version smallint NOT NULL DEFAULT 1;
ALTER TABLE rating_games ALTER COLUMN judge_version DROP DEFAULT;
CREATE INDEX rating_games_judge_version ON rating_games (judge_version);

-- Usernames: the confusable skeleton makes the separators `_` and `-` one (`text::identity::
-- skeleton`). The stored skeletons are emptied here and the server computes them again right
-- after migrating (store::users::backfill_username_skeletons): the oldest of accounts that now
-- look alike keeps the skeleton, the younger get one no name has (they keep their names and
-- logins; only new names are compared).
UPDATE users SET username_skeleton = NULL;

-- Games: a create retried with the same Idempotency-Key is answered with the game the first
-- request created (the key is the creator's; the fingerprint, SHA-256 of the request, tells a
-- retry from another request under the same key).
ALTER TABLE games ADD COLUMN create_key text, ADD COLUMN create_request bytea;
CREATE UNIQUE INDEX games_create_key ON games (created_by, create_key) WHERE create_key IS NOT NULL;
