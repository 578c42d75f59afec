-- docs/architecture.md, "Sessions": the sessions the gateway ended one by
-- one (a logout, a revocation, the others after a new second factor, the
-- least recently used past the per-user limit). Redis may lose a deletion
-- on a failover or a restore; a committed row does not, and the gateway
-- refuses every session named here. A row is needed only while the session
-- could still be used, so it is purged at the session's absolute expiry
-- (keep_until).
CREATE TABLE identity.ended_sessions (
  user_id uuid NOT NULL REFERENCES identity.users (id) ON DELETE CASCADE,
  -- The gateway's public session id.
  session_id text NOT NULL,
  ended_at timestamptz NOT NULL DEFAULT now(),
  keep_until timestamptz NOT NULL,
  PRIMARY KEY (user_id, session_id)
);
-- An account's most recent endings, which every session check reads.
CREATE INDEX ended_sessions_latest ON identity.ended_sessions (user_id, ended_at DESC);
CREATE INDEX ended_sessions_expiry ON identity.ended_sessions (keep_until);
