-- When identity.v1's ledger of sign-in methods confirmed listing the
-- connection (docs/architecture.md, "Sign-in methods"). NULL for a
-- connection made before the ledger, or whose listing failed: the service's
-- sweep lists those (docs/operations.md, "The ledger of sign-in methods").
ALTER TABLE oauth.user_oauth_connections ADD COLUMN listed_at timestamptz;
CREATE INDEX user_oauth_connections_unlisted_idx ON oauth.user_oauth_connections (linked_at) WHERE listed_at IS NULL;
