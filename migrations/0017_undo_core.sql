-- Undo (issue 23): how many events of a game's log do not count for its state and its
-- random draws: the events a `kontor.rewound` took back, and the undo events themselves
-- (`kontor.undo_*`, `kontor.rewound`). A command's draws are keyed by
-- `first_seq - undone_events` (one more than the effective events before it), so taking a
-- move back and playing it again draws exactly as if the misclick never happened. Games
-- without undos keep 0, and their key is their first sequence number, as always.

ALTER TABLE games ADD COLUMN undone_events bigint NOT NULL DEFAULT 0
    CHECK (undone_events >= 0 AND undone_events <= version);
