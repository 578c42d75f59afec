import type pg from 'pg';
import type { DeadLetter } from './dead-letters';

/** One entry of the dead-letter audit log, as `jobs dlq audit` prints it. */
export interface DeadLetterAuditEntry {
  readonly at: string;
  readonly operator: string;
  readonly host: string;
  readonly action: 'replay';
  readonly seq: number;
  readonly subject: string;
  readonly jobId: string;
}

interface AuditRow {
  at: Date;
  operator: string;
  host: string;
  action: 'replay';
  // pg returns bigint as a string.
  dead_letter_seq: string;
  subject: string;
  job_id: string;
}

/**
 * Records that `operator` on `host` is replaying `letter`
 * (migrations/002_dead_letter_audit.sql: the table only grows). Called
 * before the replay: with the database away nothing is replayed.
 */
export async function recordReplay(db: pg.Pool, entry: { operator: string; host: string; letter: DeadLetter }): Promise<void> {
  await db.query(
    `INSERT INTO jobs.dead_letter_audit_log (operator, host, action, dead_letter_seq, subject, job_id) VALUES ($1, $2, 'replay', $3, $4, $5)`,
    [entry.operator, entry.host, entry.letter.seq, entry.letter.subject, entry.letter.jobId],
  );
}

/** The newest `limit` entries, newest first. */
export async function listDeadLetterAudit(db: pg.Pool, limit: number): Promise<DeadLetterAuditEntry[]> {
  const { rows } = await db.query<AuditRow>(
    'SELECT at, operator, host, action, dead_letter_seq, subject, job_id FROM jobs.dead_letter_audit_log ORDER BY at DESC, id DESC LIMIT $1',
    [limit],
  );
  return rows.map((row) => ({
    at: row.at.toISOString(),
    operator: row.operator,
    host: row.host,
    action: row.action,
    seq: Number(row.dead_letter_seq),
    subject: row.subject,
    jobId: row.job_id,
  }));
}
