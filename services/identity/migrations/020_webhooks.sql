-- An organisation's webhook endpoints and their signing secrets
-- (docs/decisions/0006-webhooks.md, docs/api.md "Webhooks").

CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  url text NOT NULL CHECK (url ~ '^https?://' AND char_length(url) <= 2048),
  description text NOT NULL DEFAULT '' CHECK (char_length(description) <= 500),
  -- Event type names (docs/events.md) or '*' for every one.
  events text[] NOT NULL CHECK (cardinality(events) BETWEEN 1 AND 50),
  enabled boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  updated_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);
-- An organisation's endpoints, oldest first; every look-up names the organisation.
CREATE INDEX webhook_endpoints_of_organization ON webhook_endpoints (organization_id, created_at, id);

-- A secret as identity keeps it: sealed to the jobs worker's X25519 public
-- key (packages/secret-box, sealTo) with the endpoint's id as context, so
-- that identity cannot sign and a row copied elsewhere does not open. The
-- current secret has no expiry; one replaced by a rotation keeps signing
-- until expires_at.
CREATE TABLE webhook_secrets (
  id uuid PRIMARY KEY,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  sealed bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz
);
CREATE UNIQUE INDEX webhook_secrets_current ON webhook_secrets (endpoint_id) WHERE expires_at IS NULL;
CREATE INDEX webhook_secrets_of_endpoint ON webhook_secrets (endpoint_id, created_at);
