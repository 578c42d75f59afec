-- The ledger of every account's ways in (docs/architecture.md, "Sign-in
-- methods"): identity lists the password itself, in the transaction that
-- sets or drops it; passkeys and oauth list theirs before answering the call
-- that added one. A removal asks identity first, which locks the account's
-- row, refuses the last way in and marks the method (removal_begun_at); the
-- owner then deletes its own row and has the entry dropped. No secret here:
-- what a method is and which one.
CREATE TABLE identity.sign_in_methods (
  user_id uuid NOT NULL REFERENCES identity.users (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('password', 'passkey', 'provider')),
  -- '' for the password, the passkey's id, the provider's name.
  reference text NOT NULL,
  added_at timestamptz NOT NULL DEFAULT now(),
  -- Set while the owning unit removes the method: it still works, but no
  -- longer counts as a way in that another removal could leave.
  removal_begun_at timestamptz,
  PRIMARY KEY (user_id, kind, reference),
  CONSTRAINT sign_in_methods_password_reference CHECK ((kind = 'password') = (reference = ''))
);

-- Passwords are identity's own; passkeys and provider connections live in
-- their units' schemas, and each unit lists the ones it has once it serves
-- (docs/operations.md, "The ledger of sign-in methods").
INSERT INTO identity.sign_in_methods (user_id, kind, reference, added_at)
SELECT id, 'password', '', password_set_at FROM identity.users WHERE password_hash IS NOT NULL;
