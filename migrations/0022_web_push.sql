-- Web Push (RFC 8030, RFC 8291, RFC 8292): the browsers' push subscriptions of each account,
-- the per-kind choice of push, and one delivery row per notice and subscription.

-- A browser's PushSubscription: where to POST (endpoint, chosen by the browser's push service)
-- and the keys the payload is encrypted for (p256dh: the browser's P-256 public key, 65 bytes
-- uncompressed; auth: its 16-byte secret), both base64url as the browser gives them.
CREATE TABLE push_subscriptions (
    id              uuid PRIMARY KEY,
    user_id         uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    endpoint        text NOT NULL UNIQUE,
    p256dh          text NOT NULL,
    auth            text NOT NULL,
    -- a label for the settings page ("Firefox on Linux"), from the User-Agent at subscribing
    user_agent      text NOT NULL DEFAULT '',
    created_at      timestamptz NOT NULL,
    last_success_at timestamptz,
    -- consecutive failed deliveries (reset by a success)
    failure_count   integer NOT NULL DEFAULT 0
);
CREATE INDEX push_subscriptions_user ON push_subscriptions (user_id);

-- The per-kind push choice. A kind without a row has its default (see notify::push::prefs),
-- so a new notice kind needs no migration here.
CREATE TABLE push_prefs (
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind    text NOT NULL,
    enabled boolean NOT NULL,
    PRIMARY KEY (user_id, kind)
);

-- One row per notice (an outbox row) and subscription that wants it.
--   pending  → due at next_attempt_at
--   sending  → claimed by a worker until lease_until; due again once the lease expires
--   sent     → the push service accepted it (201)
--   failed   → gave up (413, another 4xx, or the last attempt)
--   gone     → the push service said 404/410: the subscription was deleted
--   skipped  → not pushed on purpose (skip_reason: stale, watching, hidden, blocked, ...)
CREATE TABLE push_deliveries (
    id              uuid PRIMARY KEY,
    outbox_id       uuid NOT NULL REFERENCES mail_outbox (id) ON DELETE CASCADE,
    subscription_id uuid REFERENCES push_subscriptions (id) ON DELETE SET NULL,
    user_id         uuid NOT NULL,
    status          text NOT NULL DEFAULT 'pending'
                        CHECK (status IN ('pending', 'sending', 'sent', 'failed', 'gone', 'skipped')),
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL,
    lease_until     timestamptz,
    claim_id        uuid,
    last_error      text,
    skip_reason     text,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    UNIQUE (outbox_id, subscription_id)
);
CREATE INDEX push_deliveries_due ON push_deliveries (next_attempt_at)
    WHERE status IN ('pending', 'sending');
CREATE INDEX push_deliveries_subscription ON push_deliveries (subscription_id);
