-- Undo with consent (issue 23). The log is the truth: a request, its answers, its end and
-- every rewind are platform events of the game's log (`kontor.undo_requested`, ...,
-- `kontor.rewound`). This table is only a projection of a game's open request, written in
-- the same transaction as the events that open, answer and close it, so that a move can see
-- at a glance (one row by primary key, read with the command's context) that its batch must
-- begin by lapsing a request, and the deadline worker can find requests past their deadline.

CREATE TABLE undo_requests (
    -- at most one open request per game
    game_id     uuid PRIMARY KEY REFERENCES games (id),
    -- the sequence number of its kontor.undo_requested event: the request's name
    request_seq bigint NOT NULL,
    by_seat     smallint NOT NULL,
    -- the game's version when it was asked, and the version it would rewind to
    at_version  bigint NOT NULL,
    to_version  bigint NOT NULL CHECK (to_version < at_version),
    -- the seats that must accept, and those that did
    needs       smallint[] NOT NULL,
    accepted    smallint[] NOT NULL DEFAULT '{}',
    deadline_at timestamptz NOT NULL
);
-- the deadline worker looks for requests past their deadline
CREATE INDEX undo_requests_due ON undo_requests (deadline_at);

-- "A player asks to take moves back" mails, as each player chooses.
ALTER TABLE notification_prefs
    ADD COLUMN undo_requested notice_delivery NOT NULL DEFAULT 'immediately';
ALTER TABLE mail_outbox DROP CONSTRAINT IF EXISTS mail_outbox_kind_check;
ALTER TABLE mail_outbox ADD CONSTRAINT mail_outbox_kind_check CHECK (kind IN
    ('your_turn', 'reminder', 'invited', 'game_started', 'game_over', 'digest', 'player_left',
     'verify_email', 'password_reset', 'email_changed', 'password_changed', 'chat_mention',
     'rematch_offered', 'undo_requested'));
