-- Webhook deliveries (docs/decisions/0006-webhooks.md, docs/webhooks.md):
-- one message per event and endpoint, written in the transaction of the
-- change the event reports, and the log of every attempt to deliver it.

-- Since when the endpoint's attempts have failed without one succeeding;
-- identity disables it once this is WEBHOOK_DISABLE_AFTER_HOURS old.
ALTER TABLE webhook_endpoints ADD COLUMN failing_since timestamptz;

CREATE TABLE webhook_messages (
  -- The `webhook-id` header: the same on every attempt, so that receivers drop repeats.
  id uuid PRIMARY KEY,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  -- The domain event it carries (docs/events.md); a second fan-out of one event adds nothing.
  event_id uuid NOT NULL,
  type text NOT NULL,
  -- The JSON `{type, timestamp, data}` exactly as signed and sent.
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  -- When an attempt succeeded; retries of a delivered message stop.
  delivered_at timestamptz,
  UNIQUE (endpoint_id, event_id)
);
CREATE INDEX webhook_messages_by_age ON webhook_messages (created_at);

CREATE TABLE webhook_attempts (
  id uuid PRIMARY KEY,
  message_id uuid NOT NULL REFERENCES webhook_messages (id) ON DELETE CASCADE,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  -- succeeded: a 2xx answer; failed: another answer or none in time; refused: the address led inside.
  status text NOT NULL CHECK (status IN ('succeeded', 'failed', 'refused')),
  response_status integer CHECK (response_status BETWEEN 100 AND 599),
  duration_ms integer NOT NULL CHECK (duration_ms >= 0),
  attempted_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);
-- The delivery log: an endpoint's attempts, newest first, by keyset.
CREATE INDEX webhook_attempts_of_endpoint ON webhook_attempts (endpoint_id, attempted_at DESC, id DESC);
CREATE INDEX webhook_attempts_of_message ON webhook_attempts (message_id);
