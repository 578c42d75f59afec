import { createHash, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { AppError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';

type Queryable = pg.ClientBase | pg.Pool;

/** Who made a change (docs/audit.md): a member, a SCIM client, an operator, or Latchkey itself. */
export type AuditActorType = 'user' | 'scim' | 'admin' | 'system';

/** What an entry is about: its kind ("organization", "user", "role", "invitation") and id. */
export interface AuditSubject {
  readonly type: string;
  readonly id: string;
}

/** An entry to write: the rest (seq, time, client, hashes) is the log's. */
export interface AuditChange {
  readonly organizationId: string;
  readonly action: string;
  readonly actor: { readonly type: AuditActorType; readonly id: string };
  readonly target: AuditSubject;
  /**
   * What else the change says: strings, booleans and lists of strings, no
   * numbers, which JSON libraries print each their own way, and never an
   * email or a secret (an append-only entry cannot forget what it holds).
   */
  readonly data?: Readonly<Record<string, string | boolean | readonly string[]>>;
}

/**
 * One entry as the list and the export show it, and as its hash covers
 * (docs/audit.md, "The chain"): every field but `hash`.
 */
export interface AuditEntry {
  readonly id: string;
  readonly organization_id: string;
  readonly seq: number;
  readonly action: string;
  readonly actor: { readonly type: string; readonly id: string };
  readonly target: AuditSubject;
  readonly ip: string;
  readonly user_agent: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly created_at: string;
  readonly prev_hash: string;
  readonly hash: string;
}

/** The prev_hash of an organisation's first entry. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * JSON with object keys sorted and no whitespace: what Python's
 * `json.dumps(e, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`
 * and `jq -cS` print for the same value, so an auditor recomputes a hash
 * with either (docs/audit.md).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** SHA-256, hex, of the canonical JSON of the entry without its `hash`. */
export function entryHash(entry: Omit<AuditEntry, 'hash'>): string {
  return createHash('sha256').update(canonicalJson(entry), 'utf8').digest('hex');
}

/**
 * Appends one entry to the organisation's chain in the caller's
 * transaction, so that it commits with the change it records, or not at
 * all. The chain's head row is locked until then: the writers of one
 * organisation take turns, those of others do not wait.
 */
export async function recordOrgAudit(db: pg.ClientBase, change: AuditChange, context: RequestContext): Promise<void> {
  const { rows } = await db.query<{ seq: string; hash: string; now: Date }>(
    `INSERT INTO identity.org_audit_heads (organization_id, seq, hash) VALUES ($1, 0, $2)
     ON CONFLICT (organization_id) DO UPDATE SET seq = identity.org_audit_heads.seq
     RETURNING seq, hash, date_trunc('milliseconds', now()) AS now`,
    [change.organizationId, GENESIS_HASH],
  );
  const head = rows[0]!;
  const unhashed: Omit<AuditEntry, 'hash'> = {
    id: randomUUID(),
    organization_id: change.organizationId,
    seq: Number(head.seq) + 1,
    action: change.action,
    actor: { type: change.actor.type, id: change.actor.id },
    target: { type: change.target.type, id: change.target.id },
    ip: context.client?.ip ?? '',
    user_agent: context.client?.userAgent ?? '',
    data: change.data ?? {},
    created_at: head.now.toISOString(),
    prev_hash: head.hash,
  };
  const hash = entryHash(unhashed);
  await db.query(
    `INSERT INTO identity.org_audit_log
       (id, organization_id, seq, action, actor_type, actor_id, target_type, target_id, ip, user_agent, data, created_at, prev_hash, hash)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [
      unhashed.id,
      unhashed.organization_id,
      unhashed.seq,
      unhashed.action,
      unhashed.actor.type,
      unhashed.actor.id,
      unhashed.target.type,
      unhashed.target.id,
      unhashed.ip,
      unhashed.user_agent,
      JSON.stringify(unhashed.data),
      unhashed.created_at,
      unhashed.prev_hash,
      hash,
    ],
  );
  await db.query('UPDATE identity.org_audit_heads SET seq = $2, hash = $3 WHERE organization_id = $1', [change.organizationId, unhashed.seq, hash]);
}

interface EntryRow {
  id: string;
  organization_id: string;
  seq: string;
  action: string;
  actor_type: string;
  actor_id: string;
  target_type: string;
  target_id: string;
  ip: string;
  user_agent: string;
  data: Record<string, unknown>;
  created_at: Date;
  prev_hash: string;
  hash: string;
}

function entryOf(row: EntryRow): AuditEntry {
  return {
    id: row.id,
    organization_id: row.organization_id,
    seq: Number(row.seq),
    action: row.action,
    actor: { type: row.actor_type, id: row.actor_id },
    target: { type: row.target_type, id: row.target_id },
    ip: row.ip,
    user_agent: row.user_agent,
    data: row.data,
    created_at: row.created_at.toISOString(),
    prev_hash: row.prev_hash,
    hash: row.hash,
  };
}

const ENTRY_COLUMNS = 'id, organization_id, seq, action, actor_type, actor_id, target_type, target_id, ip, user_agent, data, created_at, prev_hash, hash';

/** What a listing keeps: entries of one action, of one actor, from `since` (inclusive) until `until` (exclusive). */
export interface AuditFilter {
  readonly action?: string | undefined;
  readonly actorId?: string | undefined;
  readonly since?: Date | undefined;
  readonly until?: Date | undefined;
}

function filterSql(organizationId: string, filter: AuditFilter): { where: string; values: unknown[] } {
  const values: unknown[] = [organizationId];
  const conditions = ['organization_id = $1'];
  const add = (condition: (placeholder: string) => string, value: unknown): void => {
    values.push(value);
    conditions.push(condition(`$${values.length}`));
  };
  if (filter.action !== undefined) add((p) => `action = ${p}`, filter.action);
  if (filter.actorId !== undefined) add((p) => `actor_id = ${p}`, filter.actorId);
  if (filter.since !== undefined) add((p) => `created_at >= ${p}`, filter.since);
  if (filter.until !== undefined) add((p) => `created_at < ${p}`, filter.until);
  return { where: conditions.join(' AND '), values };
}

/** A listing's cursor: the seq of the page's last entry, opaque to callers. */
function decodeCursor(cursor: string): number | undefined {
  if (cursor === '') return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^seq:[1-9]\d{0,14}$/.test(text)) throw AppError.validation([{ field: 'cursor', message: 'is not a cursor of this list' }]);
  return Number(text.slice(4));
}

function encodeCursor(seq: number): string {
  return Buffer.from(`seq:${seq}`).toString('base64url');
}

/**
 * A page of entries, newest first (by seq, the chain's order), before the
 * cursor: keyset pages, an index range however long the log.
 */
export async function listOrgAudit(
  db: Queryable,
  organizationId: string,
  filter: AuditFilter,
  page: { readonly limit: number; readonly cursor: string },
): Promise<{ entries: AuditEntry[]; nextCursor: string }> {
  const before = decodeCursor(page.cursor);
  const { where, values } = filterSql(organizationId, filter);
  values.push(before ?? null, page.limit + 1);
  const { rows } = await db.query<EntryRow>(
    `SELECT ${ENTRY_COLUMNS} FROM identity.org_audit_log
      WHERE ${where} AND ($${values.length - 1}::bigint IS NULL OR seq < $${values.length - 1})
      ORDER BY seq DESC LIMIT $${values.length}`,
    values,
  );
  const entries = rows.slice(0, page.limit).map(entryOf);
  return { entries, nextCursor: rows.length > page.limit ? encodeCursor(entries[entries.length - 1]!.seq) : '' };
}

/** Entries per batch of an export: its memory, whatever the length of the log. */
export const EXPORT_BATCH = 500;

/**
 * The organisation's entries in chain order (oldest first) after
 * `afterSeq`, at most EXPORT_BATCH of them, an index range of the chain;
 * `done` when no more follow.
 */
export async function exportOrgAuditBatch(
  db: Queryable,
  organizationId: string,
  filter: Pick<AuditFilter, 'since' | 'until'>,
  afterSeq: number,
): Promise<{ entries: AuditEntry[]; done: boolean }> {
  const { where, values } = filterSql(organizationId, filter);
  const { rows } = await db.query<EntryRow>(
    `SELECT ${ENTRY_COLUMNS} FROM identity.org_audit_log WHERE ${where} AND seq > $${values.length + 1} ORDER BY seq LIMIT ${EXPORT_BATCH}`,
    [...values, afterSeq],
  );
  return { entries: rows.map(entryOf), done: rows.length < EXPORT_BATCH };
}

/** Every entry of the organisation in chain order, a batch at a time. */
export async function* exportOrgAudit(db: Queryable, organizationId: string, filter: Pick<AuditFilter, 'since' | 'until'>): AsyncGenerator<AuditEntry> {
  let after = 0;
  for (;;) {
    const batch = await exportOrgAuditBatch(db, organizationId, filter, after);
    yield* batch.entries;
    if (batch.done) return;
    after = batch.entries[batch.entries.length - 1]!.seq;
  }
}

/**
 * AUDIT_RETENTION_DAYS: removes, in each organisation, the entries up to
 * the newest one older than `cutoff`, a prefix of its chain, so that what
 * is kept still checks from its first entry, whose seq and prev_hash say
 * what went before (docs/audit.md, "Retention"). The only deletion the
 * table lets through (migrations/018_org_audit_log.sql). Answers how many
 * entries went.
 */
export async function expireOrgAudit(pool: pg.Pool, cutoff: Date): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SET LOCAL latchkey.org_audit_retention = 'on'`);
    const { rowCount } = await client.query(
      `DELETE FROM identity.org_audit_log entry
        USING (SELECT organization_id, max(seq) AS last FROM identity.org_audit_log WHERE created_at < $1 GROUP BY organization_id) old
        WHERE entry.organization_id = old.organization_id AND entry.seq <= old.last`,
      [cutoff],
    );
    await client.query('COMMIT');
    return rowCount ?? 0;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Who an entry names as the actor of a change: the operator an admin.v1
 * call names (the latchkey-operator metadata), else the member who acted,
 * else Latchkey itself (an account's deletion taking its memberships).
 */
export function actorOfChange(actorUserId: string, context: RequestContext): AuditChange['actor'] {
  if (context.operator !== undefined) return { type: 'admin', id: context.operator };
  if (actorUserId !== '') return { type: 'user', id: actorUserId };
  return { type: 'system', id: '' };
}

/**
 * How a sign-in proved the account, as the audit log names it. Identity
 * checks a password itself; a passkey, Google or GitHub is checked by
 * another service, which tells identity when it signs the account in
 * (identity.v1 GetUser's `sign_in`).
 */
export type SignInMethodName = 'password' | 'passkey' | 'google' | 'github';

/** A sign-in's outcome, as the audit log names it. An SSO connection records only successes: a refused response makes no account known. */
export type SignInOutcome =
  | { readonly succeeded: true; readonly method: SignInMethodName }
  | { readonly succeeded: true; readonly method: 'sso'; readonly connectionId: string }
  | { readonly succeeded: false; readonly method: SignInMethodName; readonly reason: 'invalid_credentials' | 'account_disabled' };

function signInData(outcome: SignInOutcome): Record<string, string> {
  if (!outcome.succeeded) return { method: outcome.method, reason: outcome.reason };
  return outcome.method === 'sso' ? { method: 'sso', connection_id: outcome.connectionId } : { method: outcome.method };
}

/** recordSignIn's entries, in the caller's transaction. */
export async function recordSignInWithin(db: pg.ClientBase, userId: string, outcome: SignInOutcome, context: RequestContext): Promise<void> {
  const { rows } = await db.query<{ organization_id: string }>('SELECT organization_id FROM identity.org_memberships WHERE user_id = $1 ORDER BY organization_id', [userId]);
  for (const { organization_id: organizationId } of rows) {
    await recordOrgAudit(
      db,
      {
        organizationId,
        action: outcome.succeeded ? 'auth.sign_in' : 'auth.sign_in_failed',
        actor: { type: 'user', id: userId },
        target: { type: 'user', id: userId },
        data: signInData(outcome),
      },
      context,
    );
  }
}

/**
 * Records a sign-in or a failed one of an account in every organisation it
 * is a member of (docs/audit.md), each in its own chain, in one
 * transaction. An account in no organisation costs one index look-up.
 */
export async function recordSignIn(pool: pg.Pool, userId: string, outcome: SignInOutcome, context: RequestContext): Promise<void> {
  const { rows } = await pool.query<{ organization_id: string }>('SELECT organization_id FROM identity.org_memberships WHERE user_id = $1 ORDER BY organization_id', [userId]);
  if (rows.length === 0) return;
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await recordSignInWithin(client, userId, outcome, context);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
