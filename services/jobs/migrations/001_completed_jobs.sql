-- Jobs whose effect happened (for mail: SMTP accepted the message), keyed by
-- the producer's Nats-Msg-Id, so that a redelivered job does not act twice.
CREATE TABLE completed_jobs (
  job_id text PRIMARY KEY,
  completed_at timestamptz NOT NULL DEFAULT now()
);

-- The hourly cleanup deletes by age.
CREATE INDEX completed_jobs_completed_at_idx ON completed_jobs (completed_at);
