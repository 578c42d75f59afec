-- docs/operations.md, "Audit": the admin audit names the person as well as
-- the certificate that called, records reads of personal data, and can only
-- grow.

-- The person the caller said it acts for (the latchkey-operator metadata);
-- empty in the entries written before this column existed.
ALTER TABLE admin_audit_log ADD COLUMN operator text NOT NULL DEFAULT '';

-- A read of every account's audit names no one account.
ALTER TABLE admin_audit_log ALTER COLUMN user_id DROP NOT NULL;

-- Append-only for every role that uses the table, whichever role migrated
-- it: a statement trigger fires even when a statement matches no row, and
-- TRUNCATE, which row triggers never see, is refused too. Only the table's
-- owner can get past it, by dropping or disabling the trigger: DDL, which
-- the installation's PostgreSQL logs.
CREATE FUNCTION admin_audit_log_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'admin_audit_log is append-only: % refused', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER admin_audit_log_append_only
  BEFORE UPDATE OR DELETE OR TRUNCATE ON admin_audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION admin_audit_log_refuse_change();
