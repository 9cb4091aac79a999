-- When the last attempt to deliver a mail handed it to the mail server (set just before the
-- SMTP transaction, cleared by a recorded failure). A mail still `sending` with it set was
-- perhaps delivered by a worker that died before recording the answer: a later claim that
-- finds it no longer worth sending (its turn has passed) records it as sent at that time,
-- rather than as skipped.
ALTER TABLE mail_outbox ADD COLUMN handed_at timestamptz;
