-- Passkeys a password reset took back (docs/security.md, "A reset takes back
-- what an intruder added"), kept under the reset's id so that the gateway,
-- which removes them at once, and the worker, which makes sure and mails the
-- notice, get the same answer. Kept 30 days; only what the notice names.
CREATE TABLE reset_removals (
  reset_id uuid NOT NULL,
  user_id uuid NOT NULL,
  passkey_id uuid NOT NULL,
  name text NOT NULL,
  -- When the passkey had been registered.
  registered_at timestamptz NOT NULL,
  removed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (reset_id, passkey_id)
);
CREATE INDEX reset_removals_user_idx ON reset_removals (user_id);
CREATE INDEX reset_removals_removed_at_idx ON reset_removals (removed_at);
