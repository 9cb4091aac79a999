-- Notice preferences as rows: one per user, kind of notice and channel the user chose for
-- (`notice_choices`). The kinds are a list in the code (`service::notices::NoticeKind`), with
-- each kind's default per channel: a user without a row for a kind and channel has that
-- default, so a new kind needs no migration here, nor in the outbox.

--   mail → immediately | digest | off
--   push → on | off
CREATE TABLE notice_choices (
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind       text NOT NULL,
    channel    text NOT NULL CHECK (channel IN ('mail', 'push')),
    choice     text NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, kind, channel),
    CHECK (CASE channel WHEN 'mail' THEN choice IN ('immediately', 'digest', 'off')
                        ELSE choice IN ('on', 'off') END)
);
-- The daily digest looks for users who chose it for some kinds.
CREATE INDEX notice_choices_digest ON notice_choices (kind) WHERE choice = 'digest';

-- Every stored mail choice moves into a row, whatever its value: a user's row in
-- notification_prefs held every kind's choice since it was first saved.
INSERT INTO notice_choices (user_id, kind, channel, choice, updated_at)
SELECT p.user_id, c.kind, 'mail', c.choice, p.updated_at
  FROM notification_prefs p
 CROSS JOIN LATERAL (VALUES
        ('your_turn', p.your_turn::text),
        ('reminder', p.reminder::text),
        ('invited', p.invited::text),
        ('game_started', p.game_started::text),
        ('game_over', p.game_over::text),
        ('player_left', p.player_left::text),
        ('chat_mention', p.chat_mention::text),
        ('rematch_offered', p.rematch_offered::text),
        ('undo_requested', p.undo_requested::text),
        ('tournament_started', p.tournament_started::text),
        ('tournament_round', p.tournament_round::text),
        ('tournament_finished', p.tournament_finished::text),
        ('tournament_cancelled', p.tournament_cancelled::text)
     ) AS c(kind, choice);

-- The push choices (push_prefs: a row per kind the user switched) move too.
INSERT INTO notice_choices (user_id, kind, channel, choice)
SELECT user_id, kind, 'push', CASE WHEN enabled THEN 'on' ELSE 'off' END
  FROM push_prefs;
DROP TABLE push_prefs;

-- What stays per user: "your turn" even while watching the game live. The row also serves
-- as the lock that orders one user's changes of preferences.
ALTER TABLE notification_prefs
    DROP COLUMN your_turn,
    DROP COLUMN reminder,
    DROP COLUMN invited,
    DROP COLUMN game_started,
    DROP COLUMN game_over,
    DROP COLUMN player_left,
    DROP COLUMN chat_mention,
    DROP COLUMN rematch_offered,
    DROP COLUMN undo_requested,
    DROP COLUMN tournament_started,
    DROP COLUMN tournament_round,
    DROP COLUMN tournament_finished,
    DROP COLUMN tournament_cancelled;
DROP DOMAIN notice_delivery;

-- The outbox's kinds are the code's list (notices, account mails, the digest): every row is
-- written through one door that takes only those. A CHECK here would need a migration for
-- every new kind and would say nothing the types do not.
ALTER TABLE mail_outbox DROP CONSTRAINT IF EXISTS mail_outbox_kind_check;
