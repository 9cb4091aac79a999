-- Every notice (a row of mail_outbox that is not an account mail or a digest) may also go out
-- by Web Push and to webhooks. Each of those channels walks the outbox with its own mark, so
-- a notice is handed to each channel exactly once, whatever became of its mail. Rows queued
-- before this migration are marked as handed over: no channel existed for them.
ALTER TABLE mail_outbox
    ADD COLUMN push_planned boolean NOT NULL DEFAULT true,
    ADD COLUMN hooks_planned boolean NOT NULL DEFAULT true;
ALTER TABLE mail_outbox
    ALTER COLUMN push_planned SET DEFAULT false,
    ALTER COLUMN hooks_planned SET DEFAULT false;
CREATE INDEX mail_outbox_push_unplanned ON mail_outbox (created_at) WHERE NOT push_planned;
CREATE INDEX mail_outbox_hooks_unplanned ON mail_outbox (created_at) WHERE NOT hooks_planned;
