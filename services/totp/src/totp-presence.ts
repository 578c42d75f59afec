import type pg from 'pg';
import type { identityV1 } from '@latchkey/contracts';
import { withTransaction } from '@latchkey/db';
import { AppError } from '@latchkey/errors';
import { withOwnRequestContext, type RequestContext, type ServiceClient } from '@latchkey/grpc-kit';
import type { Logger } from '@latchkey/telemetry';
import { hasUnmarkedCredentials, lockUnmarkedCredentials, storePresenceMarks } from './totp-store';

export type IdentityClient = ServiceClient<typeof identityV1.IdentityServiceService>;

/**
 * Tells identity which accounts may have TOTP on (docs/architecture.md,
 * "Second factor presence"), so that the gateway can skip asking this unit
 * at sign-in when identity knows TOTP is off. Identity must never think it
 * off while it is on: it hears "possible" before TOTP is turned on, and
 * "absent" only after it was turned off, with the mark of the TOTP that
 * went, so that a TOTP turned on again meanwhile stays "possible".
 */

/** Marks the account possible before its TOTP is turned on; answers the mark to store with it. */
export async function markTotpPossible(identity: IdentityClient, userId: string, context: RequestContext): Promise<number> {
  const { marks } = await identity.recordTotpPossible({ userIds: [userId] }, context);
  const mark = marks[0];
  // Identity has no such account: it was deleted while its TOTP was being set up.
  if (!mark) throw new AppError('auth:unauthorized');
  return mark.mark;
}

/**
 * Unmarks the account once its TOTP is off. A failure leaves it marked,
 * which is safe (sign-ins ask this unit, as before), and is only logged:
 * TOTP is off either way.
 */
export async function markTotpAbsent(identity: IdentityClient, userId: string, mark: number, context: RequestContext): Promise<void> {
  if (mark < 1) return;
  await identity.recordTotpAbsent({ userId, mark }, context).catch((error: unknown) => {
    context.logger.warn({ err: error, user_id: userId }, 'could not tell identity that TOTP is off; it stays marked possible');
  });
}

/** identity.v1 RecordTotpPossible takes at most this many accounts a call. */
const BATCH = 500;
/** How long to wait before trying a failed census again. */
const RETRY_MS = 10_000;
/** One batch's budget. */
const BATCH_BUDGET_MS = 10_000;

/** Marks one batch of the credentials turned on before the marks existed; answers how many there were. */
async function markBatch(deps: { readonly pool: pg.Pool; readonly identity: IdentityClient }, context: RequestContext): Promise<number> {
  return withTransaction(deps.pool, context, async (db) => {
    const userIds = await lockUnmarkedCredentials(db, BATCH);
    if (userIds.length === 0) return 0;
    const { marks } = await deps.identity.recordTotpPossible({ userIds }, context);
    await storePresenceMarks(db, new Map(marks.map((mark) => [mark.userId, mark.mark])), userIds);
    return userIds.length;
  });
}

/**
 * At start, marks in identity every TOTP turned on before the marks
 * existed, then tells identity the census is complete: from then on an
 * unmarked account has TOTP off. Tried again until it succeeds; once
 * complete it has nothing left to do, since every TOTP turned on since is
 * marked first (docs/operations.md, "Second factor presence").
 */
export function startTotpCensus(deps: { readonly pool: pg.Pool; readonly identity: IdentityClient; readonly logger: Logger }): { stop(): Promise<void> } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const inContext = <T>(work: (context: RequestContext) => Promise<T>): Promise<T> => withOwnRequestContext(deps.logger, BATCH_BUDGET_MS, work);
  const census = async (): Promise<void> => {
    try {
      let marked = 0;
      // A short or empty batch does not prove that none is left: rows another pod's census held are
      // skipped once it marked them, and a LIMIT then answers fewer. Only a plain look can say so.
      for (;;) {
        const count = await inContext((context) => markBatch(deps, context));
        marked += count;
        if (stopped) return;
        if (count === 0 && !(await hasUnmarkedCredentials(deps.pool))) break;
      }
      await inContext((context) => deps.identity.completeTotpCensus({}, context));
      deps.logger.info({ marked }, 'totp census complete: identity knows every account that may have TOTP on');
    } catch (error) {
      deps.logger.warn({ err: error }, 'could not finish the totp census; trying again later');
      if (!stopped) timer = setTimeout(() => void (running = census()), RETRY_MS).unref();
    }
  };
  let running = census();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
