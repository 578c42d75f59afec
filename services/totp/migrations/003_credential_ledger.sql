-- identity's credential ledger (docs/architecture.md, "The credential
-- ledger") holds every account's TOTP, instead of the presence marks: this
-- unit reserves TOTP there before it turns it on or off, with the account
-- locked, and settles the account after.

-- Accounts whose TOTP changed since the ledger last heard of it. The
-- trigger queues them whatever code made the change (this release's, a
-- totp unit of the previous release during a rollout or after a rollback,
-- an operator's), and the unit's sweep settles them; `version` grows with
-- every change, so that a settlement unqueues only what it saw.
CREATE TABLE totp.unsettled_accounts (
  user_id uuid PRIMARY KEY,
  version bigint NOT NULL DEFAULT 1,
  queued_at timestamptz NOT NULL DEFAULT now()
);

CREATE FUNCTION totp.queue_unsettled_account() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO totp.unsettled_accounts AS queued (user_id)
  VALUES (CASE WHEN TG_OP = 'DELETE' THEN OLD.user_id ELSE NEW.user_id END)
  ON CONFLICT (user_id) DO UPDATE SET version = queued.version + 1;
  RETURN NULL;
END $$;

CREATE TRIGGER totp_credentials_queue_unsettled_account
  AFTER INSERT OR DELETE OR UPDATE OF enabled_at ON totp.totp_credentials
  FOR EACH ROW EXECUTE FUNCTION totp.queue_unsettled_account();

-- The ledger begins from what this unit holds: every account is settled once.
INSERT INTO totp.unsettled_accounts (user_id) SELECT user_id FROM totp.totp_credentials;

-- The presence marks go. A totp unit of the previous release names the
-- column when it turns TOTP on, so its insert fails: during a rollout or
-- after a rollback it can no longer turn TOTP on unknown to the ledger
-- (which would let a sign-in skip the second step). It can still sign in
-- with TOTP; turning TOTP off, which also names the column, waits for this
-- release.
ALTER TABLE totp.totp_credentials DROP COLUMN presence_mark;
