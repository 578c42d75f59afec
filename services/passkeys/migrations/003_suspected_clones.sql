-- docs/api.md, "Passkeys": when a correctly signed sign-in reported a
-- signature counter that did not grow, a copy of the authenticator's key may
-- be in other hands. The passkey is marked (the first time it was seen) and
-- signs in to nothing any more; its owner removes it.
ALTER TABLE passkeys ADD COLUMN suspected_clone_at timestamptz;
