-- The answer stored for an action's idempotency key is a cache for retries, kept only as long
-- as a retry can come (KONTOR_IDEMPOTENCY_WINDOW): housekeeping then empties it, keeping the
-- key and the request's digest, so a late retry is still recognised. Commands without a key
-- (the server's own) never store one.
ALTER TABLE game_commands ALTER COLUMN response DROP NOT NULL;

-- How far housekeeping's passes over time-ordered ids (uuid v7) have got, per pass: each
-- batch starts where the last ended, so rows already handled are never read again.
CREATE TABLE housekeeping_marks (
    name    text PRIMARY KEY,
    through uuid NOT NULL
);
