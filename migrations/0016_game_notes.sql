-- Private notes (issue 23): each player may keep one plain-text note per game, for their own
-- eyes only. A note is personal data, not part of the game's record: it is deleted with the
-- account, is in the owner's my-data export, and is read by no other path (no view, stream,
-- log, export, mail or admin list). Clearing a note deletes its row.

CREATE TABLE game_notes (
    game_id    uuid NOT NULL REFERENCES games (id),
    user_id    uuid NOT NULL REFERENCES users (id),
    -- Line breaks as LF, no other control character; the limit is service::notes::MAX_CHARS.
    body       text NOT NULL CHECK (char_length(body) BETWEEN 1 AND 10000),
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (game_id, user_id)
);
-- The my-data export and the account's deletion find a user's notes.
CREATE INDEX game_notes_by_user ON game_notes (user_id);
