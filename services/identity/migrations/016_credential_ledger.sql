-- One ledger of every account's credentials, whichever unit holds them
-- (docs/architecture.md, "The credential ledger"): the password (identity's
-- own), passkeys (passkeys), provider connections (oauth) and TOTP (totp).
-- It answers "is this the last way in?" from the active first factors and
-- "may a second factor be on?" from every second factor not removed, and
-- replaces both the ledger of sign-in methods (009) and the TOTP presence
-- marks and census (010). No secret here: what a credential is and which.
--
-- An owner reserves a credential (pending) or its removal (removing) with
-- the account locked in its own database, changes its own rows, then
-- settles the account: what it holds is active, what it does not goes. Its
-- sweep settles whatever a failure left pending or removing.
CREATE TABLE identity.credentials (
  user_id uuid NOT NULL REFERENCES identity.users (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('password', 'passkey', 'provider', 'totp')),
  -- '' for the password and TOTP (an account has one of each), the
  -- passkey's id, the provider's name.
  reference text NOT NULL,
  factor text NOT NULL GENERATED ALWAYS AS (CASE WHEN kind = 'totp' THEN 'second' ELSE 'first' END) STORED,
  -- pending: reserved by its owner, not yet settled (no way in yet, but a
  -- second factor that may be on); active; removing: its owner is deleting
  -- it, or a password reset took it back (still working, no longer a way
  -- in, still a second factor that may be on).
  state text NOT NULL CHECK (state IN ('pending', 'active', 'removing')),
  -- When its owner stored it: a password reset takes back the passkeys and
  -- provider links added shortly before it.
  added_at timestamptz NOT NULL DEFAULT now(),
  -- When its owner last reserved or settled it: the sweeps settle what has
  -- stayed pending or removing since a while.
  changed_at timestamptz NOT NULL DEFAULT now(),
  -- When its owner suspended it: a passkey suspected of being cloned signs
  -- in to nothing, so it proves no factor.
  suspended_at timestamptz,
  -- The provider connection a provider sign-up created the account with,
  -- which a password reset never takes back.
  opened_account boolean NOT NULL DEFAULT false,
  -- The password reset that took it back, until its owner removed it.
  taken_back_by uuid,
  PRIMARY KEY (user_id, kind, reference),
  CONSTRAINT credentials_one_password_one_totp CHECK ((kind IN ('password', 'totp')) = (reference = '')),
  CONSTRAINT credentials_taken_back_removing CHECK (taken_back_by IS NULL OR state = 'removing')
);
CREATE INDEX credentials_unsettled_idx ON identity.credentials (kind, user_id) WHERE state <> 'active';

-- The password is identity's own: active as it is.
INSERT INTO identity.credentials (user_id, kind, reference, state, added_at)
SELECT id, 'password', '', 'active', password_set_at FROM identity.users WHERE password_hash IS NOT NULL;

-- What the previous ledger listed, and the TOTP the presence marks said may
-- be on (every account's, until totp completed its census), is pending
-- until its owner settles it: each unit's migration queues every account it
-- holds credentials of, and its first sweep settles those and every
-- pending row, which no owner has ever settled (changed_at -infinity).
-- Pending counts as a second factor that may be on, and as no way in.
INSERT INTO identity.credentials (user_id, kind, reference, state, added_at, changed_at)
SELECT user_id, kind, reference, 'pending', added_at, '-infinity' FROM identity.sign_in_methods WHERE kind <> 'password';
INSERT INTO identity.credentials (user_id, kind, reference, state, changed_at)
SELECT id, 'totp', '', 'pending', '-infinity' FROM identity.users
 WHERE totp_possible OR NOT EXISTS (SELECT FROM identity.totp_census);

-- The tables of 009 and 010 stay, unread, until a later release drops them:
-- identity pods of the previous release read them while this one rolls
-- out, or after a rollback. Made so that they err on the safe side for
-- those pods: every passkey and provider they list counts as already being
-- removed (so they refuse removals they can no longer judge), and the
-- census is undone (so they answer that any account may have TOTP on).
UPDATE identity.sign_in_methods SET removal_begun_at = coalesce(removal_begun_at, now()) WHERE kind <> 'password';
DELETE FROM identity.totp_census;
