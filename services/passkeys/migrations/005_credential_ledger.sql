-- identity's credential ledger (docs/architecture.md, "The credential
-- ledger") holds every passkey: this unit reserves a passkey there before it
-- stores or deletes it, with the account locked, and settles the account
-- after.

-- Accounts whose passkeys changed since the ledger last heard of them. The
-- trigger queues them whatever code made the change (this release's, a
-- passkeys unit of the previous release during a rollout or after a
-- rollback, an operator's), and the unit's sweep settles them; `version`
-- grows with every change, so that a settlement unqueues only what it saw.
CREATE TABLE passkeys.unsettled_accounts (
  user_id uuid PRIMARY KEY,
  version bigint NOT NULL DEFAULT 1,
  queued_at timestamptz NOT NULL DEFAULT now()
);

CREATE FUNCTION passkeys.queue_unsettled_account() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO passkeys.unsettled_accounts AS queued (user_id)
  VALUES (CASE WHEN TG_OP = 'DELETE' THEN OLD.user_id ELSE NEW.user_id END)
  ON CONFLICT (user_id) DO UPDATE SET version = queued.version + 1;
  RETURN NULL;
END $$;

CREATE TRIGGER passkeys_queue_unsettled_account
  AFTER INSERT OR DELETE OR UPDATE OF created_at, suspected_clone_at ON passkeys.passkeys
  FOR EACH ROW EXECUTE FUNCTION passkeys.queue_unsettled_account();

-- The ledger begins from what this unit holds: every account is settled once.
INSERT INTO passkeys.unsettled_accounts (user_id) SELECT DISTINCT user_id FROM passkeys.passkeys;

-- A passkey's id is its reference in the ledger, reserved before the row is
-- stored, so this unit names it itself. A passkeys unit of the previous
-- release leaves it to the default, and so can no longer store a passkey
-- the ledger does not know of (a factor that proves more than a password):
-- its insert fails instead.
ALTER TABLE passkeys.passkeys ALTER COLUMN id DROP DEFAULT;

-- Whether the previous ledger had listed the passkey: the queue replaces it.
DROP INDEX passkeys.passkeys_unlisted_idx;
ALTER TABLE passkeys.passkeys DROP COLUMN listed_at;
