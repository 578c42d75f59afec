-- The connection a provider sign-up created the account with, which a
-- password reset never takes back (docs/security.md, "A reset takes back
-- what an intruder added"). Connections made before this column are not
-- known to be one: a reset in the window may remove them, which costs a
-- provider-created account a re-link at worst (the reset gave it a password).
ALTER TABLE user_oauth_connections ADD COLUMN created_account boolean NOT NULL DEFAULT false;

-- Connections a password reset took back, kept under the reset's id so that
-- the gateway, which removes them at once, and the worker, which makes sure
-- and mails the notice, get the same answer. Kept 30 days.
CREATE TABLE reset_removals (
  reset_id uuid NOT NULL,
  user_id uuid NOT NULL,
  provider text NOT NULL,
  provider_user_id text NOT NULL,
  linked_at timestamptz NOT NULL,
  removed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (reset_id, provider)
);
CREATE INDEX reset_removals_user_idx ON reset_removals (user_id);
CREATE INDEX reset_removals_removed_at_idx ON reset_removals (removed_at);
