import { settleAccounts } from '@latchkey/credential-ledger';
import type { RequestContext } from '@latchkey/grpc-kit';
import { assertValid, checkUuid } from './input-rules';
import { passkeyLedger } from './passkey-ledger';
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
 * intruder added"). Identity's credential ledger says which: settling the
 * account removes every passkey a reset took back there, and remembers it
 * under its reset. The account keeps a way in: the reset set a password.
 * Idempotent per reset: what one call (or the sweep) removed, every later
 * call for the same reset answers too, so the notice names it whoever
 * removed it first.
 */
export async function removeRecentPasskeys(
  deps: PasskeysDeps,
  input: { readonly userId: string; readonly resetId: string },
  context: RequestContext,
): Promise<ResetRemovals> {
  assertValid(checkUuid(input.userId, 'user_id'), checkUuid(input.resetId, 'reset_id'));
  await settleAccounts(deps, passkeyLedger, [input.userId], context);
  await deps.pool.query(`DELETE FROM passkeys.reset_removals WHERE removed_at < now() - make_interval(days => $1)`, [REMOVALS_KEPT_DAYS]);
  const { rows } = await deps.pool.query<{ name: string }>(
    'SELECT name FROM passkeys.reset_removals WHERE reset_id = $1 AND user_id = $2 ORDER BY registered_at, passkey_id',
    [input.resetId, input.userId],
  );
  const remaining = await findPasskeysOfUser(deps.pool, input.userId);
  return { removed: rows.map((row) => row.name), remaining: remaining.map((passkey) => passkey.name) };
}
