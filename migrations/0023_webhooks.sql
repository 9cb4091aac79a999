-- Signed webhooks (Standard Webhooks): a user's endpoints, their secrets (a rotation keeps the
-- old one valid for a day, both signing meanwhile), and one delivery row per event and
-- endpoint, which the webhooks worker sends with retries and which the delivery log shows.
CREATE TABLE webhook_endpoints (
    id              uuid PRIMARY KEY,
    user_id         uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    url             text NOT NULL,
    description     text NOT NULL DEFAULT '',
    -- `notice.<kind>` event types
    event_types     text[] NOT NULL,
    format          text NOT NULL DEFAULT 'standard' CHECK (format IN ('standard', 'discord', 'slack')),
    enabled         boolean NOT NULL DEFAULT true,
    -- why the server disabled it (`gone`: the receiver answered 410; `failing`: the last retry
    -- of a delivery failed); NULL when enabled or disabled by its owner
    disabled_reason text,
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_user ON webhook_endpoints (user_id, created_at);

CREATE TABLE webhook_secrets (
    endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    -- `whsec_` followed by the base64 of 32 random bytes
    secret      text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    -- NULL for the current secret; a rotated-out secret signs until then
    expires_at  timestamptz,
    PRIMARY KEY (endpoint_id, created_at)
);

CREATE TABLE webhook_deliveries (
    -- the `webhook-id` header: `msg_` followed by a UUID's hex; a redelivery keeps it
    id              text PRIMARY KEY,
    endpoint_id     uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    -- the notice it reports (NULL for `webhook.test`); no foreign key: housekeeping deletes
    -- old outbox rows, the delivery log keeps its own copy of the body
    notice_id       uuid,
    event_type      text NOT NULL,
    body            jsonb NOT NULL,
    status          text NOT NULL DEFAULT 'pending'
                    CHECK (status IN ('pending', 'sending', 'succeeded', 'failed')),
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL,
    lease_until     timestamptz,
    last_status     integer,
    last_error      text,
    response_excerpt text,
    created_at      timestamptz NOT NULL,
    finished_at     timestamptz,
    UNIQUE (endpoint_id, notice_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at)
    WHERE status IN ('pending', 'sending');
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (endpoint_id, created_at DESC, id);

-- The owner is mailed when the server disables an endpoint.
ALTER TABLE mail_outbox DROP CONSTRAINT IF EXISTS mail_outbox_kind_check;
ALTER TABLE mail_outbox ADD CONSTRAINT mail_outbox_kind_check CHECK (kind IN
    ('your_turn', 'reminder', 'invited', 'game_started', 'game_over', 'digest', 'player_left',
     'verify_email', 'password_reset', 'email_changed', 'password_changed', 'chat_mention',
     'rematch_offered', 'undo_requested', 'tournament_started', 'tournament_round',
     'tournament_finished', 'webhook_disabled'));
