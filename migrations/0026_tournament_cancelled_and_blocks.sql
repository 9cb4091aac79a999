-- Tournaments: "the tournament is cancelled" notices, and the blocks each round kept apart.

-- "The tournament is cancelled" (too few entered when entry closed), mailed to its entrants
-- and organiser as each chooses.
ALTER TABLE notification_prefs
    ADD COLUMN tournament_cancelled notice_delivery NOT NULL DEFAULT 'immediately';
ALTER TABLE mail_outbox DROP CONSTRAINT IF EXISTS mail_outbox_kind_check;
ALTER TABLE mail_outbox ADD CONSTRAINT mail_outbox_kind_check CHECK (kind IN
    ('your_turn', 'reminder', 'invited', 'game_started', 'game_over', 'digest', 'player_left',
     'verify_email', 'password_reset', 'email_changed', 'password_changed', 'chat_mention',
     'rematch_offered', 'undo_requested', 'tournament_started', 'tournament_round',
     'tournament_finished', 'webhook_disabled', 'tournament_cancelled'));

-- The pairs of entrants a block lay between when a round was seated (its seating kept them
-- apart where it could), flattened (a1, b1, a2, b2, …): a fact of the round, so that blocks
-- made or lifted later never change how the tournament re-derives.
ALTER TABLE tournament_rounds ADD COLUMN apart uuid[] NOT NULL DEFAULT '{}';
