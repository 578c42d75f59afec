import { settleAccounts } from '@latchkey/credential-ledger';
import type { RequestContext } from '@latchkey/grpc-kit';
import { connectionLedger } from './connection-ledger';
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
 * with. Identity's credential ledger says which: settling the account
 * removes every connection a reset took back there, and remembers it under
 * its reset. The account keeps a way in: the reset set a password.
 * Idempotent per reset: what one call (or the sweep) removed, every later
 * call for the same reset answers too.
 */
export async function removeRecentConnections(
  deps: OAuthDeps,
  input: { readonly userId: string; readonly resetId: string },
  context: RequestContext,
): Promise<ResetRemovals> {
  await settleAccounts(deps, connectionLedger, [input.userId], context);
  await deps.pool.query(`DELETE FROM oauth.reset_removals WHERE removed_at < now() - make_interval(days => $1)`, [REMOVALS_KEPT_DAYS]);
  const { rows } = await deps.pool.query<{ provider: string }>(
    'SELECT provider FROM oauth.reset_removals WHERE reset_id = $1 AND user_id = $2 ORDER BY linked_at, provider',
    [input.resetId, input.userId],
  );
  const remaining = await findConnectionsOfUser(deps.pool, input.userId);
  return { removed: rows.map((row) => row.provider), remaining: remaining.map((connection) => connection.provider) };
}
