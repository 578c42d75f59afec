import type { RequestContext } from '@latchkey/grpc-kit';
import { AppError } from '@latchkey/errors';
import { withTransaction } from '@latchkey/db';
import { identityV1 } from '@latchkey/contracts';
import { findConnectionsOfUser } from './connection-store';
import type { OAuthDeps } from './oauth-deps';

/** How long the removals of a reset are remembered: far longer than its job can be retried. */
const REMOVALS_KEPT_DAYS = 30;

/** What a password reset took and left: provider names. */
export interface ResetRemovals {
  readonly removed: readonly string[];
  readonly remaining: readonly string[];
}

/**
 * A password reset proves only the mailbox, so the provider links made in
 * the window before it go (docs/security.md, "A reset takes back what an
 * intruder added"), except the one a provider sign-up created the account
 * with. The account keeps a way in: the reset set a password. Idempotent
 * per reset: what one call removed, every later call for the same reset
 * answers too.
 */
export async function removeRecentConnections(
  deps: OAuthDeps,
  input: { readonly userId: string; readonly resetId: string; readonly addedAfter?: Date | undefined; readonly addedBefore?: Date | undefined },
  context: RequestContext,
): Promise<ResetRemovals> {
  if (!input.addedAfter || !input.addedBefore) {
    throw AppError.validation([{ field: input.addedAfter ? 'added_before' : 'added_after', message: 'is required' }]);
  }
  const answer = await withTransaction(deps.pool, context, async (db) => {
    // Locked like an unlink, so that a link or unlink running now is counted before or after.
    await findConnectionsOfUser(db, input.userId, true);
    await db.query(
      `WITH removed AS (
         DELETE FROM oauth.user_oauth_connections
          WHERE user_id = $1 AND NOT created_account AND linked_at > $3 AND linked_at < $4
         RETURNING provider, provider_user_id, linked_at
       )
       INSERT INTO oauth.reset_removals (reset_id, user_id, provider, provider_user_id, linked_at)
       SELECT $2, $1, provider, provider_user_id, linked_at FROM removed
       ON CONFLICT DO NOTHING`,
      [input.userId, input.resetId, input.addedAfter, input.addedBefore],
    );
    await db.query(`DELETE FROM oauth.reset_removals WHERE removed_at < now() - make_interval(days => $1)`, [REMOVALS_KEPT_DAYS]);
    const { rows } = await db.query<{ provider: string }>(
      'SELECT provider FROM oauth.reset_removals WHERE reset_id = $1 AND user_id = $2 ORDER BY linked_at, provider',
      [input.resetId, input.userId],
    );
    const remaining = await findConnectionsOfUser(db, input.userId);
    return { removed: rows.map((row) => row.provider), remaining: remaining.map((connection) => connection.provider) };
  });
  // On every call, so that a call repeated after a failure here still unlists them; a provider linked again since stays.
  const linked = new Set<string>(answer.remaining);
  const gone = answer.removed.filter((provider) => !linked.has(provider));
  await deps.identity.finishSignInMethodRemovals(
    { userId: input.userId, kind: identityV1.SignInMethodKind.SIGN_IN_METHOD_KIND_PROVIDER, references: gone },
    context,
  );
  return answer;
}
