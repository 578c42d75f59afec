import type pg from 'pg';
import { withOwnRequestContext } from '@latchkey/grpc-kit';
import { startPeriodicTask, type PeriodicTask } from '@latchkey/runtime';
import type { Logger } from '@latchkey/telemetry';
import type { CredentialOwner, IdentityClient } from './credential-owner';
import { MAX_ACCOUNTS_PER_SETTLEMENT, queuedAccounts, settleAccounts } from './settlement';

/** How often a unit settles what is left unsettled. */
const SWEEP_INTERVAL_MS = 60_000;
/**
 * A reservation younger than this is left to the change that made it, which
 * settles it within its deadline. Settling it sooner would be right too (the
 * account lock keeps a settlement from reading a change half made), only
 * wasted.
 */
const SETTLE_AFTER_MS = 30_000;
/** One batch's budget. */
const BATCH_BUDGET_MS = 10_000;

export interface SweepDeps {
  readonly pool: pg.Pool;
  readonly identity: IdentityClient;
  readonly logger: Logger;
}

/** Settles pages of accounts until `page` answers a short one; answers how many it settled. */
async function settlePages(deps: SweepDeps, owner: CredentialOwner, page: (after: string | undefined) => Promise<string[]>): Promise<number> {
  let settled = 0;
  for (let after: string | undefined; ; ) {
    const userIds = await page(after);
    if (userIds.length > 0) {
      await withOwnRequestContext(deps.logger, BATCH_BUDGET_MS, (context) => settleAccounts(deps, owner, userIds, context));
    }
    settled += userIds.length;
    if (userIds.length < MAX_ACCOUNTS_PER_SETTLEMENT) return settled;
    after = userIds.at(-1);
  }
}

/**
 * Settles with identity's ledger every account the unit queued (its
 * credentials changed, by this release's code or an earlier one's, or the
 * ledger began after them) and every account the ledger holds reservations
 * of the unit's kind for, made before `changedBefore`: a unit that failed
 * or died between reserving and settling, a reset's take-back not yet
 * carried out. Answers how many accounts it settled.
 */
export async function sweepLedger(
  deps: SweepDeps,
  owner: CredentialOwner,
  changedBefore: Date = new Date(Date.now() - SETTLE_AFTER_MS),
): Promise<number> {
  const queued = await settlePages(deps, owner, (after) => queuedAccounts(deps.pool, owner, after, MAX_ACCOUNTS_PER_SETTLEMENT));
  const reserved = await settlePages(deps, owner, async (after) => {
    const { userIds } = await withOwnRequestContext(deps.logger, BATCH_BUDGET_MS, (context) =>
      deps.identity.listUnsettledCredentials(
        { kind: owner.kind, changedBefore, afterUserId: after ?? '', limit: MAX_ACCOUNTS_PER_SETTLEMENT },
        context,
      ),
    );
    return userIds;
  });
  return queued + reserved;
}

/** Sweeps at start and then every minute; a failed turn is logged and tried again at the next. */
export function startLedgerSweep(deps: SweepDeps, owner: CredentialOwner): PeriodicTask {
  return startPeriodicTask(
    {
      description: `settling ${owner.schema}'s credentials in the ledger`,
      intervalMs: SWEEP_INTERVAL_MS,
      async run() {
        const settled = await sweepLedger(deps, owner);
        if (settled > 0) deps.logger.info({ settled }, 'credential ledger settled');
      },
    },
    deps.logger,
  );
}
