-- docs/integration.md, "Administration": an administrator may disable an
-- account (it cannot sign in, its sessions end) and every admin action is
-- kept with the caller that made it.
ALTER TABLE users ADD COLUMN disabled_at timestamptz;
ALTER TABLE users ADD COLUMN disabled_reason text;

CREATE TABLE admin_audit_log (
  id uuid PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  caller text NOT NULL,
  action text NOT NULL,
  -- No foreign key: the entry of a deletion outlives the account.
  user_id uuid NOT NULL,
  reason text NOT NULL DEFAULT ''
);
CREATE INDEX admin_audit_log_newest ON admin_audit_log (at DESC, id DESC);
CREATE INDEX admin_audit_log_user_newest ON admin_audit_log (user_id, at DESC, id DESC);

-- ListUsers pages newest first by (created_at, id).
CREATE INDEX users_newest ON users (created_at DESC, id DESC);
