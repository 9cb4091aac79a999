-- The private iCalendar feed of each player's moves (`service::calendar`): at most one per
-- account. Only the SHA-256 of its token is kept, as of every token here; the feed's URL
-- is shown once, when it is made. Replacing the feed overwrites the row (the old URL stops
-- working); revoking it deletes the row.
CREATE TABLE calendar_feeds (
    user_id    uuid PRIMARY KEY REFERENCES users (id),
    token_hash bytea NOT NULL UNIQUE,
    created_at timestamptz NOT NULL
);
