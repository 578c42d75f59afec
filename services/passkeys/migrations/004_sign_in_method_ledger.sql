-- When identity.v1's ledger of sign-in methods confirmed listing the passkey
-- (docs/architecture.md, "Sign-in methods"). NULL for a passkey registered
-- before the ledger, or whose listing failed: the service's sweep lists
-- those (docs/operations.md, "The ledger of sign-in methods").
ALTER TABLE passkeys.passkeys ADD COLUMN listed_at timestamptz;
CREATE INDEX passkeys_unlisted_idx ON passkeys.passkeys (created_at) WHERE listed_at IS NULL;
