import type pg from 'pg';
import { quoteIdentifier, withTransaction } from '@latchkey/db';
import type { RequestContext } from '@latchkey/grpc-kit';
import { lockAccounts } from './account-locks';
import type { CredentialOwner, IdentityClient } from './credential-owner';

/** identity.v1 SettleCredentials takes at most this many accounts a call. */
export const MAX_ACCOUNTS_PER_SETTLEMENT = 100;

/** The queue of accounts whose credentials changed since identity's ledger last heard of them. */
function queueOf(owner: Pick<CredentialOwner, 'schema'>): string {
  return `${quoteIdentifier(owner.schema)}.unsettled_accounts`;
}

/** Queued accounts of the unit after `afterUserId`, in id order. */
export async function queuedAccounts(db: pg.Pool, owner: Pick<CredentialOwner, 'schema'>, afterUserId: string | undefined, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ user_id: string }>(
    `SELECT user_id FROM ${queueOf(owner)} WHERE $1::uuid IS NULL OR user_id > $1 ORDER BY user_id LIMIT $2`,
    [afterUserId ?? null, limit],
  );
  return rows.map((row) => row.user_id);
}

/**
 * One settlement of the accounts, with their locks held: identity's ledger
 * learns what the unit holds, and the unit removes what resets took back.
 * The accounts leave the queue unless they changed meanwhile (the trigger
 * raised their version: a change made without the lock, or the take-backs
 * just removed). Answers the accounts whose take-backs were removed.
 */
async function settleOnce(
  deps: { readonly pool: pg.Pool; readonly identity: IdentityClient },
  owner: CredentialOwner,
  userIds: readonly string[],
  context: RequestContext,
): Promise<string[]> {
  return withTransaction(deps.pool, context, async (db) => {
    await lockAccounts(db, owner, userIds);
    const { rows: queued } = await db.query<{ user_id: string; version: string }>(
      `SELECT user_id, version FROM ${queueOf(owner)} WHERE user_id = ANY($1::uuid[])`,
      [[...userIds]],
    );
    const accounts = await owner.held(db, userIds);
    const { takeBacks } = await deps.identity.settleCredentials({ kind: owner.kind, accounts }, context);
    if (takeBacks.length > 0) {
      if (!owner.takeBack) throw new Error(`identity's ledger answered take-backs of ${owner.schema}, which holds no kind a reset takes back`);
      await owner.takeBack(db, takeBacks, context);
    }
    await db.query(
      `DELETE FROM ${queueOf(owner)} AS queued USING unnest($1::uuid[], $2::bigint[]) AS seen (user_id, version)
        WHERE queued.user_id = seen.user_id AND queued.version = seen.version`,
      [queued.map((row) => row.user_id), queued.map((row) => row.version)],
    );
    return [...new Set(takeBacks.map((takeBack) => takeBack.userId))];
  });
}

/**
 * Settles the accounts (at most MAX_ACCOUNTS_PER_SETTLEMENT) with identity's
 * ledger (docs/architecture.md, "The credential ledger"): what the unit
 * holds becomes active, what it does not goes, whatever was reserved. The
 * credentials password resets took back are removed and settled at once,
 * so that the ledger holds them no more when this resolves.
 */
export async function settleAccounts(
  deps: { readonly pool: pg.Pool; readonly identity: IdentityClient },
  owner: CredentialOwner,
  userIds: readonly string[],
  context: RequestContext,
): Promise<void> {
  const tookBack = await settleOnce(deps, owner, userIds, context);
  if (tookBack.length > 0) await settleOnce(deps, owner, tookBack, context);
}
