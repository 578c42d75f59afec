import type { RequestContext } from '@latchkey/grpc-kit';
import { withTransaction } from '@latchkey/db';
import { identityV1 } from '@latchkey/contracts';
import { assertValid, checkUuid } from './input-rules';
import type { PasskeysDeps } from './passkeys-deps';
import { findPasskeysOfUser } from './passkey-store';

/** How long the removals of a reset are remembered: far longer than its job can be retried. */
const REMOVALS_KEPT_DAYS = 30;

/** What a password reset took and left, by name, oldest first. */
export interface ResetRemovals {
  readonly removed: readonly string[];
  readonly remaining: readonly string[];
}

/**
 * A password reset proves only the mailbox, so the passkeys registered in
 * the window before it go (docs/security.md, "A reset takes back what an
 * intruder added"). The account keeps a way in: the reset set a password.
 * Idempotent per reset: what one call removed, every later call for the
 * same reset answers too, so the notice names it whoever removed it first.
 */
export async function removeRecentPasskeys(
  deps: PasskeysDeps,
  input: { readonly userId: string; readonly resetId: string; readonly addedAfter?: Date | undefined; readonly addedBefore?: Date | undefined },
  context: RequestContext,
): Promise<ResetRemovals> {
  assertValid(
    checkUuid(input.userId, 'user_id'),
    checkUuid(input.resetId, 'reset_id'),
    input.addedAfter ? [] : [{ field: 'added_after', message: 'is required' }],
    input.addedBefore ? [] : [{ field: 'added_before', message: 'is required' }],
  );
  const answer = await withTransaction(deps.pool, context, async (db) => {
    // Locked like a deletion, so that a registration or removal running now is counted before or after.
    await findPasskeysOfUser(db, input.userId, true);
    await db.query(
      `WITH removed AS (
         DELETE FROM passkeys.passkeys WHERE user_id = $1 AND created_at > $3 AND created_at < $4
         RETURNING id, name, created_at
       )
       INSERT INTO passkeys.reset_removals (reset_id, user_id, passkey_id, name, registered_at)
       SELECT $2, $1, id, name, created_at FROM removed
       ON CONFLICT DO NOTHING`,
      [input.userId, input.resetId, input.addedAfter, input.addedBefore],
    );
    await db.query(`DELETE FROM passkeys.reset_removals WHERE removed_at < now() - make_interval(days => $1)`, [REMOVALS_KEPT_DAYS]);
    const { rows } = await db.query<{ name: string; passkey_id: string }>(
      'SELECT name, passkey_id FROM passkeys.reset_removals WHERE reset_id = $1 AND user_id = $2 ORDER BY registered_at, passkey_id',
      [input.resetId, input.userId],
    );
    const remaining = await findPasskeysOfUser(db, input.userId);
    return { removedIds: rows.map((row) => row.passkey_id), removed: rows.map((row) => row.name), remaining: remaining.map((passkey) => passkey.name) };
  });
  // On every call, so that a call repeated after a failure here still unlists them.
  await deps.identity.finishSignInMethodRemovals(
    { userId: input.userId, kind: identityV1.SignInMethodKind.SIGN_IN_METHOD_KIND_PASSKEY, references: answer.removedIds },
    context,
  );
  return { removed: answer.removed, remaining: answer.remaining };
}
