import type { identityV1 } from '@latchkey/contracts';
import { withOwnRequestContext, type ServiceClient } from '@latchkey/grpc-kit';
import type { Logger } from '@latchkey/telemetry';
import { startPeriodicTask, type PeriodicTask } from '@latchkey/runtime';

/** Accounts deleted per call: one short identity transaction each. */
const BATCH_SIZE = 500;

/**
 * docs/api.md, "Accounts": an account whose email is not verified within
 * AUTH_UNVERIFIED_ACCOUNT_TTL_HOURS is deleted, freeing its email and
 * handle, so that nobody can sit on an address they do not own and wait
 * for its owner to verify it or sign in with a provider. Identity owns the
 * rows; the worker only keeps the schedule, and every replica may run it
 * (identity skips rows another purge holds).
 */
export function startUnverifiedAccountPurge(
  deps: {
    readonly identity: ServiceClient<typeof identityV1.IdentityServiceService>;
    readonly ttlHours: number;
    readonly intervalMs: number;
    readonly budgetMs: number;
  },
  logger: Logger,
): PeriodicTask {
  return startPeriodicTask(
    {
      description: 'purging unverified accounts',
      intervalMs: deps.intervalMs,
      async run() {
        const registeredBefore = new Date(Date.now() - deps.ttlHours * 3_600_000);
        let purged = 0;
        for (;;) {
          const { deletedUsers } = await withOwnRequestContext(logger, deps.budgetMs, (context) =>
            deps.identity.purgeUnverifiedUsers({ registeredBefore, limit: BATCH_SIZE }, context),
          );
          purged += deletedUsers;
          if (deletedUsers < BATCH_SIZE) break;
        }
        if (purged > 0) logger.info({ purged }, 'unverified accounts purged');
      },
    },
    logger,
  );
}
