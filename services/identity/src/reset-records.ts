import type pg from 'pg';
import { isUuid } from '@latchkey/account-fields';
import { AppError, type FieldError } from '@latchkey/errors';

/** A reset is kept past the jobs stream's seven days, so that every genuine `user.reset` job finds it. */
const KEPT_DAYS = 8;

/** A password reset as identity made it: what its `user.reset` job may remove. */
export interface ResetRecord {
  readonly resetId: string;
  readonly userId: string;
  readonly resetAt: Date;
  readonly methodsAddedAfter: Date;
}

/** Records a reset in the transaction that makes it and queues its job. */
export async function recordReset(db: pg.ClientBase, reset: ResetRecord): Promise<void> {
  await db.query('INSERT INTO identity.password_resets (id, user_id, reset_at, methods_added_after) VALUES ($1, $2, $3, $4)', [
    reset.resetId,
    reset.userId,
    reset.resetAt,
    reset.methodsAddedAfter,
  ]);
}

/** The reset `resetId` of account `userId`, if identity made it (and has not yet forgotten it). */
export async function findReset(db: pg.Pool, userId: string, resetId: string): Promise<ResetRecord | undefined> {
  const errors: FieldError[] = [];
  if (!isUuid(userId)) errors.push({ field: 'user_id', message: 'must be a UUID' });
  if (!isUuid(resetId)) errors.push({ field: 'reset_id', message: 'must be a UUID' });
  if (errors.length > 0) throw AppError.validation(errors);
  const { rows } = await db.query<{ id: string; user_id: string; reset_at: Date; methods_added_after: Date }>(
    'SELECT id, user_id, reset_at, methods_added_after FROM identity.password_resets WHERE id = $1 AND user_id = $2',
    [resetId, userId],
  );
  const row = rows[0];
  return row && { resetId: row.id, userId: row.user_id, resetAt: row.reset_at, methodsAddedAfter: row.methods_added_after };
}

/** Forgets resets no job can ask about any more. */
export async function deleteOldResets(db: pg.Pool): Promise<number> {
  const { rowCount } = await db.query(`DELETE FROM identity.password_resets WHERE reset_at < now() - interval '${String(KEPT_DAYS)} days'`);
  return rowCount ?? 0;
}
