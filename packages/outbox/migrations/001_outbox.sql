-- Jobs written in the same transaction as the state change that causes them;
-- the relay publishes each row to JetStream and then deletes it.
CREATE TABLE outbox (
  id uuid PRIMARY KEY,
  subject text NOT NULL,
  payload jsonb NOT NULL,
  headers jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE INDEX outbox_created_at_idx ON outbox (created_at);
