-- docs/operations.md, "Audit": who put a parked job back on its subject,
-- from where, and which job it was. Kept here, with the jobs unit's own
-- bookkeeping, since the dead-letter stream is this unit's; the admin audit
-- of accounts is identity's admin_audit_log.
CREATE TABLE dead_letter_audit_log (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  -- The person who ran `jobs dlq` (--operator, or the OS user).
  operator text NOT NULL,
  -- The host it ran on: the pod's name in a cluster.
  host text NOT NULL,
  -- "replay": written before the replay, so an attempt that then failed
  -- is kept too (the job is then still parked).
  action text NOT NULL,
  dead_letter_seq bigint NOT NULL,
  -- The job's original subject and id (its Nats-Msg-Id), never its payload.
  subject text NOT NULL,
  job_id text NOT NULL
);
CREATE INDEX dead_letter_audit_log_newest ON dead_letter_audit_log (at DESC, id DESC);

-- Append-only for every role that uses the table, as identity's
-- admin_audit_log: a statement trigger refuses UPDATE, DELETE and TRUNCATE,
-- even of no row; only the owner can drop it, which is logged DDL.
CREATE FUNCTION dead_letter_audit_log_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'dead_letter_audit_log is append-only: % refused', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER dead_letter_audit_log_append_only
  BEFORE UPDATE OR DELETE OR TRUNCATE ON dead_letter_audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION dead_letter_audit_log_refuse_change();
