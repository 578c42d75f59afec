-- Connections between accounts (owned by identity, referenced by id only:
-- no service reads another's tables) and identities at a provider.
CREATE TABLE user_oauth_connections (
  -- Lower-case provider name, as in API paths.
  provider text NOT NULL,
  -- The provider's stable id: Google's `sub`, GitHub's numeric user id.
  provider_user_id text NOT NULL,
  user_id uuid NOT NULL,
  -- The provider-verified email when the connection was made, lower-cased.
  email text NOT NULL,
  linked_at timestamptz NOT NULL DEFAULT now(),
  -- One provider identity belongs to at most one account ...
  CONSTRAINT user_oauth_connections_pkey PRIMARY KEY (provider, provider_user_id),
  -- ... and an account has at most one identity per provider (docs/api.md, "Error codes": oauth:already_linked).
  CONSTRAINT user_oauth_connections_user_provider_key UNIQUE (user_id, provider),
  CONSTRAINT user_oauth_connections_provider_known CHECK (provider IN ('google', 'github')),
  CONSTRAINT user_oauth_connections_email_lower CHECK (email = lower(email))
);
