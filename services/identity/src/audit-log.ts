import type pg from 'pg';
import { uuidv7 } from 'uuidv7';

export type AdminAction = 'disable_user' | 'enable_user' | 'revoke_all_sessions' | 'send_password_reset' | 'delete_user';

export interface AuditRecord {
  id: string;
  at: Date;
  caller: string;
  action: AdminAction;
  user_id: string;
  reason: string;
}

/** Writes one entry, in the transaction of the action it records. */
export async function recordAdminAction(
  db: pg.ClientBase,
  entry: { caller: string; action: AdminAction; userId: string; reason?: string },
): Promise<void> {
  await db.query('INSERT INTO identity.admin_audit_log (id, caller, action, user_id, reason) VALUES ($1, $2, $3, $4, $5)', [
    uuidv7(),
    entry.caller,
    entry.action,
    entry.userId,
    entry.reason ?? '',
  ]);
}

/** Up to `limit` entries before the (at, id) cursor, newest first, of one account or all. */
export async function listAuditPage(
  db: pg.Pool,
  options: { userId: string | undefined; limit: number; after: { at: Date; id: string } | undefined },
): Promise<AuditRecord[]> {
  const conditions: string[] = [];
  const values: unknown[] = [options.limit];
  if (options.userId !== undefined) {
    values.push(options.userId);
    conditions.push(`user_id = $${values.length}`);
  }
  if (options.after !== undefined) {
    values.push(options.after.at, options.after.id);
    conditions.push(`(at, id) < ($${values.length - 1}, $${values.length})`);
  }
  const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
  const { rows } = await db.query<AuditRecord>(
    `SELECT id, at, caller, action, user_id, reason FROM identity.admin_audit_log ${where} ORDER BY at DESC, id DESC LIMIT $1`,
    values,
  );
  return rows;
}
