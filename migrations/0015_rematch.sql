-- Rematch (issue 23): after a game ends any seat may offer to play again; the others accept
-- or decline before a deadline. Offers and answers are platform records beside the game, not
-- events of its log (a finished game's log is closed). When every seat that must answer has
-- accepted, a new game with the same kind, options and time control starts with the seats
-- rotated, and the offer names it: that row links the two games both ways.

CREATE TABLE rematch_offers (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- the finished game
    game_id     uuid NOT NULL REFERENCES games (id),
    offered_by  uuid NOT NULL REFERENCES users (id),
    offer_seat  smallint NOT NULL,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    -- open; accepted (the new game started); declined (a seat said no); expired (the
    -- deadline passed first); cancelled (the table could no longer meet: a block or a
    -- deleted account since the offer)
    status      text NOT NULL DEFAULT 'open'
                CHECK (status IN ('open', 'accepted', 'declined', 'expired', 'cancelled')),
    closed_at   timestamptz,
    -- the rematch, once every seat accepted
    new_game_id uuid UNIQUE REFERENCES games (id),
    CHECK ((status = 'open') = (closed_at IS NULL)),
    CHECK ((status = 'accepted') = (new_game_id IS NOT NULL))
);
-- At most one open offer per game, and one rematch per game.
CREATE UNIQUE INDEX rematch_offers_one_open ON rematch_offers (game_id) WHERE status = 'open';
CREATE UNIQUE INDEX rematch_offers_one_rematch ON rematch_offers (game_id) WHERE status = 'accepted';
-- housekeeping looks for open offers past their deadline
CREATE INDEX rematch_offers_due ON rematch_offers (expires_at) WHERE status = 'open';

-- One answer per seat and offer, final once given (the offering seat's acceptance is its
-- offer, recorded as an answer too).
CREATE TABLE rematch_answers (
    offer_id    bigint NOT NULL REFERENCES rematch_offers (id),
    seat        smallint NOT NULL,
    user_id     uuid NOT NULL REFERENCES users (id),
    accept      boolean NOT NULL,
    answered_at timestamptz NOT NULL,
    PRIMARY KEY (offer_id, seat)
);

-- "A rematch was offered" mails, as each player chooses.
ALTER TABLE notification_prefs
    ADD COLUMN rematch_offered notice_delivery NOT NULL DEFAULT 'immediately';
ALTER TABLE mail_outbox DROP CONSTRAINT IF EXISTS mail_outbox_kind_check;
ALTER TABLE mail_outbox ADD CONSTRAINT mail_outbox_kind_check CHECK (kind IN
    ('your_turn', 'reminder', 'invited', 'game_started', 'game_over', 'digest', 'player_left',
     'verify_email', 'password_reset', 'email_changed', 'password_changed', 'chat_mention',
     'rematch_offered'));
