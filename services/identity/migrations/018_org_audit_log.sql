-- docs/audit.md: each organisation's audit log, its own table with a hash
-- chain per organisation (docs/decisions/0005-organisation-audit-log.md).
-- No foreign key to organizations: the entries of a deleted organisation
-- outlive it, as the deletion's own entry must.
CREATE TABLE org_audit_log (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL,
  -- 1, 2, 3, ... within the organisation: the chain's order.
  seq bigint NOT NULL CHECK (seq >= 1),
  action text NOT NULL CHECK (action ~ '^[a-z][a-z0-9_.]*$'),
  actor_type text NOT NULL CHECK (actor_type IN ('user', 'scim', 'admin', 'system')),
  actor_id text NOT NULL,
  target_type text NOT NULL,
  target_id text NOT NULL,
  ip text NOT NULL,
  user_agent text NOT NULL,
  data jsonb NOT NULL,
  -- Milliseconds: the hashed serialisation carries them, and no more.
  created_at timestamptz NOT NULL CHECK (created_at = date_trunc('milliseconds', created_at)),
  -- The hash of the entry seq - 1; 64 zeros for seq 1.
  prev_hash text NOT NULL CHECK (prev_hash ~ '^[0-9a-f]{64}$'),
  hash text NOT NULL CHECK (hash ~ '^[0-9a-f]{64}$'),
  UNIQUE (organization_id, seq)
);
-- Listing newest first with filters; the export and retention in chain order use the unique index.
CREATE INDEX org_audit_log_listing ON org_audit_log (organization_id, created_at DESC, id DESC);
CREATE INDEX org_audit_log_created ON org_audit_log (created_at);

-- Append-only for every path but retention. An update or a truncation is
-- refused always; a deletion only inside a transaction that set
-- latchkey.org_audit_retention (services/identity/src/orgs/org-audit-log.ts,
-- expireOrgAuditLog), which removes a prefix of each chain. As with
-- admin_audit_log (006), only the table's owner can get past it by DDL,
-- which the installation's PostgreSQL logs.
CREATE FUNCTION org_audit_log_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('latchkey.org_audit_retention', true) = 'on' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'org_audit_log is append-only: % refused', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER org_audit_log_no_update
  BEFORE UPDATE ON org_audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION org_audit_log_refuse_change();

CREATE TRIGGER org_audit_log_no_truncate
  BEFORE TRUNCATE ON org_audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION org_audit_log_refuse_change();

CREATE TRIGGER org_audit_log_retention_only
  BEFORE DELETE ON org_audit_log
  FOR EACH ROW EXECUTE FUNCTION org_audit_log_refuse_change();

-- The newest entry of each organisation's chain: what the next entry
-- chains to, kept apart from the entries so that retention may remove them
-- all and the chain still goes on from where it was. Its row is the lock
-- that makes the writers of one organisation take turns (no fork).
CREATE TABLE org_audit_heads (
  organization_id uuid PRIMARY KEY,
  seq bigint NOT NULL,
  hash text NOT NULL CHECK (hash ~ '^[0-9a-f]{64}$')
);
