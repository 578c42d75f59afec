-- docs/oidc.md: what Latchkey's OpenID Provider keeps durably. The grants
-- users gave to applications and every code and token issued under them
-- live here, beside the accounts, so that a password reset, a disable and
-- an account deletion revoke them in their own transaction, and a rotated
-- refresh token can never come back (Redis may lose a write on failover;
-- a committed row does not).
CREATE TABLE oidc_artifacts (
  kind text NOT NULL CHECK (kind IN ('Grant', 'AuthorizationCode', 'DeviceCode', 'AccessToken', 'RefreshToken')),
  id text NOT NULL,
  payload jsonb NOT NULL,
  -- Null for a device code not yet approved.
  user_id uuid REFERENCES users (id) ON DELETE CASCADE,
  client_id text NOT NULL,
  grant_id text,
  user_code text,
  expires_at timestamptz NOT NULL,
  consumed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, id)
);
CREATE INDEX oidc_artifacts_grant ON oidc_artifacts (grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX oidc_artifacts_user_client ON oidc_artifacts (user_id, client_id, kind);
CREATE UNIQUE INDEX oidc_artifacts_user_code ON oidc_artifacts (user_code) WHERE user_code IS NOT NULL;
CREATE INDEX oidc_artifacts_expiry ON oidc_artifacts (expires_at);

-- Which Latchkey session (by its public id, the OpenID `sid`) signed in to
-- which client, and how that client hears that the session ended.
CREATE TABLE oidc_session_clients (
  session_id text NOT NULL,
  client_id text NOT NULL,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  backchannel_logout_uri text NOT NULL DEFAULT '',
  session_required boolean NOT NULL DEFAULT false,
  signing_alg text NOT NULL DEFAULT 'EdDSA',
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (session_id, client_id)
);
CREATE INDEX oidc_session_clients_user ON oidc_session_clients (user_id);

-- Clients registered through admin.v1 (OIDC_CLIENTS are the gateway's
-- configuration and never stored). The secret only as its SHA-256: it is
-- 256 random bits, so a fast hash is as strong as a slow one.
CREATE TABLE oidc_clients (
  client_id text PRIMARY KEY,
  metadata jsonb NOT NULL,
  secret_hash text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
