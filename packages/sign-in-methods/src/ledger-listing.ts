import type pg from 'pg';
import type { identityV1 } from '@latchkey/contracts';
import { withTransaction } from '@latchkey/db';
import { withOwnRequestContext, type RequestContext } from '@latchkey/grpc-kit';
import { startPeriodicTask, type PeriodicTask } from '@latchkey/runtime';
import type { Logger } from '@latchkey/telemetry';
import type { IdentityClient } from './method-removal';

/** identity.v1 RecordSignInMethods takes at most this many methods a call. */
const BATCH = 500;
/** How often a unit lists what it has not listed yet: methods older than the ledger, and those whose listing failed. */
const SWEEP_INTERVAL_MS = 60_000;
/** One batch's budget. */
const BATCH_BUDGET_MS = 10_000;

/** A unit's side of the ledger: its own rows and whether identity has them. */
export interface MethodOwner {
  /**
   * Locks (FOR UPDATE SKIP LOCKED) and answers up to `limit` of the unit's
   * methods not yet listed in identity, only `id`'s when given.
   */
  lockUnlisted(db: pg.ClientBase, limit: number, id?: string): Promise<identityV1.SignInMethodOfUser[]>;
  /** Marks the methods `lockUnlisted` answered as listed, in the same transaction. */
  markListed(db: pg.ClientBase, methods: readonly identityV1.SignInMethodOfUser[]): Promise<void>;
}

/**
 * Lists in identity a batch of the unit's methods it has not listed yet
 * (only `id`'s when given), with the unit's rows locked while identity
 * records them: a deletion of one of them waits, so that identity never
 * lists a method after its removal finished. Answers how many were listed;
 * fewer than a full batch means none is left.
 */
export async function listOwnedMethods(
  deps: { readonly pool: pg.Pool; readonly identity: IdentityClient },
  owner: MethodOwner,
  context: RequestContext,
  id?: string,
): Promise<number> {
  return withTransaction(deps.pool, context, async (db) => {
    const methods = await owner.lockUnlisted(db, BATCH, id);
    if (methods.length === 0) return 0;
    await deps.identity.recordSignInMethods({ methods }, context);
    await owner.markListed(db, methods);
    return methods.length;
  });
}

/**
 * Lists, at start and then every minute, what the unit has not listed:
 * after an upgrade, every method stored before the ledger existed
 * (docs/operations.md, "The ledger of sign-in methods"). A failed turn is
 * logged and tried again at the next.
 */
export function startLedgerSweep(
  deps: { readonly pool: pg.Pool; readonly identity: IdentityClient; readonly logger: Logger },
  owner: MethodOwner,
): PeriodicTask {
  const batch = (): Promise<number> => withOwnRequestContext(deps.logger, BATCH_BUDGET_MS, (context) => listOwnedMethods(deps, owner, context));
  return startPeriodicTask(
    {
      description: 'listing sign-in methods in the ledger',
      intervalMs: SWEEP_INTERVAL_MS,
      async run() {
        let listed = 0;
        for (let count = BATCH; count === BATCH; listed += count) count = await batch();
        if (listed > 0) deps.logger.info({ listed }, 'sign-in methods listed in the ledger');
      },
    },
    deps.logger,
  );
}
