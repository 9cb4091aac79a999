-- Email notifications: preferences, the outbox and who is watching a game live.

-- How a user wants one kind of notice: mailed at once, gathered in the daily digest, or not.
CREATE DOMAIN notice_delivery AS text
    CHECK (VALUE IN ('immediately', 'digest', 'off'));

-- One row per user who changed a preference; no row means every default.
CREATE TABLE notification_prefs (
    user_id      uuid PRIMARY KEY REFERENCES users (id),
    your_turn    notice_delivery NOT NULL DEFAULT 'immediately',
    reminder     notice_delivery NOT NULL DEFAULT 'immediately',
    invited      notice_delivery NOT NULL DEFAULT 'immediately',
    game_started notice_delivery NOT NULL DEFAULT 'immediately',
    game_over    notice_delivery NOT NULL DEFAULT 'immediately',
    -- mail "your turn" even while the player watches the game's live stream
    always_email boolean NOT NULL DEFAULT false,
    updated_at   timestamptz NOT NULL DEFAULT now()
);

-- Every notice to mail, written in the transaction of the change it reports, so a committed
-- move always notifies and a rolled-back one never does. Delivery workers share it through
-- SELECT … FOR UPDATE SKIP LOCKED and a lease per claimed row.
--
--   pending  → due at next_attempt_at
--   sending  → claimed by a worker until lease_until; claimed again once the lease expires
--   sent     → final; never sent again
--   failed   → gave up (max attempts, or a permanent SMTP refusal); an admin may retry it
--   skipped  → not mailed on purpose (skip_reason: watching, off, stale, no_address)
--   held     → waits for the user's daily digest
--   digested → reported in the digest mail digest_id
CREATE TABLE mail_outbox (
    id              uuid PRIMARY KEY,
    user_id         uuid NOT NULL REFERENCES users (id),
    kind            text NOT NULL CHECK (kind IN
                        ('your_turn', 'reminder', 'invited', 'game_started', 'game_over', 'digest')),
    -- no foreign key: games are never deleted, and the outbox stays shardable apart from them
    game_id         uuid,
    -- one mail per key and recipient, however many times it is enqueued
    dedupe_key      text NOT NULL,
    -- what the template needs (game kind, opponents, deadline, result, inviter…)
    data            jsonb NOT NULL,
    status          text NOT NULL CHECK (status IN
                        ('pending', 'sending', 'sent', 'failed', 'skipped', 'held', 'digested')),
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    lease_until     timestamptz,
    -- the claim that holds the lease, and which worker made it
    claim_id        uuid,
    claimed_by      text,
    last_error      text,
    skip_reason     text,
    digest_id       uuid REFERENCES mail_outbox (id),
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    sent_at         timestamptz,
    UNIQUE (user_id, dedupe_key)
);
CREATE INDEX mail_outbox_due ON mail_outbox (next_attempt_at) WHERE status = 'pending';
CREATE INDEX mail_outbox_leased ON mail_outbox (lease_until) WHERE status = 'sending';
CREATE INDEX mail_outbox_held ON mail_outbox (user_id) WHERE status = 'held';
CREATE INDEX mail_outbox_failed ON mail_outbox (updated_at) WHERE status = 'failed';

-- Who watches which game's live stream, kept by the stream handlers of every instance
-- (a heartbeat refreshes seen_at). A row seen in the last 60 s means "watching": no
-- "your turn" mail is sent then, unless the user asked for always_email.
CREATE TABLE live_presence (
    user_id     uuid NOT NULL,
    game_id     uuid NOT NULL,
    instance_id text NOT NULL,
    seen_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, game_id, instance_id)
);
