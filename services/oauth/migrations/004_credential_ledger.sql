-- identity's credential ledger (docs/architecture.md, "The credential
-- ledger") holds every provider connection: this unit reserves a connection
-- there before it stores or deletes it, with the account locked, and
-- settles the account after.

-- Accounts whose connections changed since the ledger last heard of them.
-- The trigger queues them whatever code made the change (this release's,
-- an oauth unit of the previous release during a rollout or after a
-- rollback, an operator's), and the unit's sweep settles them; `version`
-- grows with every change, so that a settlement unqueues only what it saw.
-- A connection stored by the previous release is no way in to the ledger
-- until then, which only refuses a removal sooner: a connection is neither
-- a second factor nor more than one.
CREATE TABLE oauth.unsettled_accounts (
  user_id uuid PRIMARY KEY,
  version bigint NOT NULL DEFAULT 1,
  queued_at timestamptz NOT NULL DEFAULT now()
);

CREATE FUNCTION oauth.queue_unsettled_account() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO oauth.unsettled_accounts AS queued (user_id)
  VALUES (CASE WHEN TG_OP = 'DELETE' THEN OLD.user_id ELSE NEW.user_id END)
  ON CONFLICT (user_id) DO UPDATE SET version = queued.version + 1;
  RETURN NULL;
END $$;

CREATE TRIGGER user_oauth_connections_queue_unsettled_account
  AFTER INSERT OR DELETE OR UPDATE OF linked_at, created_account ON oauth.user_oauth_connections
  FOR EACH ROW EXECUTE FUNCTION oauth.queue_unsettled_account();

-- The ledger begins from what this unit holds: every account is settled once.
INSERT INTO oauth.unsettled_accounts (user_id) SELECT DISTINCT user_id FROM oauth.user_oauth_connections;

-- Whether the previous ledger had listed the connection: the queue replaces it.
DROP INDEX oauth.user_oauth_connections_unlisted_idx;
ALTER TABLE oauth.user_oauth_connections DROP COLUMN listed_at;
