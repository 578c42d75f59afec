import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { defineRedisScript, type RedisScript, type RedisClient } from '@latchkey/db';
import type { RequestContext } from '@latchkey/grpc-kit';

/** How often a removal waiting for another one of the same account asks again. */
const RETRY_MS = 20;
/** Beyond the request's deadline, so that a gateway that dies holding the lock frees it soon. */
const LEASE_MARGIN_MS = 1_000;

/** Deletes the lock only if it is still this holder's, not one that took it after a lease ran out. */
const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/**
 * Serialises, per account, the changes that remove a way to sign in: a
 * passkey (passkeys.v1) and a linked provider (oauth.v1). Each unit
 * refuses to remove the last way in, but it counts its own rows and asks
 * the other units about theirs; a removal in each unit at once would see
 * the other's method still there, and together they would leave the
 * account with none (docs/api.md, "Passkeys"). The gateway is the one
 * caller of both, so it takes the turn for them; the lock lives in Redis
 * with the sessions, and its lease ends soon after the request's deadline.
 */
export class SignInMethodLock {
  private readonly release: RedisScript;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {
    this.release = defineRedisScript(redis, RELEASE_SCRIPT);
  }

  /** Runs `work` while no other removal of `userId`'s ways in runs; waits at most until the request's deadline. */
  async hold<T>(userId: string, context: RequestContext, work: () => Promise<T>): Promise<T> {
    const key = `${this.prefix}sign-in-method-lock:${userId}`;
    const holder = randomBytes(16).toString('base64url');
    const leaseMs = Math.max(context.deadline - Date.now(), 0) + LEASE_MARGIN_MS;
    while ((await this.redis.set(key, holder, 'PX', leaseMs, 'NX')) !== 'OK') {
      await sleep(RETRY_MS);
      context.signal.throwIfAborted();
    }
    try {
      return await work();
    } finally {
      // A release that fails leaves the lease to end by itself, a second after the deadline.
      await this.release([key], [holder]).catch(() => undefined);
    }
  }
}
