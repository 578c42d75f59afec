-- docs/security.md, "A compromised unit": the password resets identity
-- made, so that the jobs worker asks before a `user.reset` job removes an
-- account's recent ways in, instead of taking the bus's word for it. Kept
-- for eight days, longer than the jobs stream keeps a job (seven).
CREATE TABLE identity.password_resets (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES identity.users (id) ON DELETE CASCADE,
  reset_at timestamptz NOT NULL,
  methods_added_after timestamptz NOT NULL
);
CREATE INDEX password_resets_age ON identity.password_resets (reset_at);
