import { defineRedisScript, type RedisScript, type RedisClient } from '@latchkey/db';
import { AppError } from '@latchkey/errors';

/**
 * Takes one unit of the user's failure budget, atomically, before a code is
 * checked: answers 0, or the milliseconds until the window ends when the
 * budget is spent. Checking first and counting after would let a burst of
 * parallel guesses all pass the check.
 */
const RESERVE_SCRIPT = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used >= tonumber(ARGV[1]) then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl < 1 then ttl = 1 end
  return ttl
end
redis.call('INCR', KEYS[1])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

/** Gives the unit back when the code was right or no code was tested; DECR keeps the window's expiry. */
const REFUND_SCRIPT = `
if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then return redis.call('DECR', KEYS[1]) end
return 0`;

/**
 * docs/api.md, "Rate limits": 10 wrong TOTP codes per user per 15 minutes, counted
 * across every call that checks a code (enable, disable, regenerate, login).
 * A fixed window starts at the first failure. While the budget is spent,
 * every code is refused with `rate_limit:exceeded`, a right one included,
 * so that guessing cannot go on.
 */
export class CodeFailureLimit {
  private readonly reserveScript: RedisScript;
  private readonly refundScript: RedisScript;

  constructor(
    private readonly redis: RedisClient,
    private readonly keyPrefix: string,
    private readonly settings: { readonly maxFailures: number; readonly windowSeconds: number },
  ) {
    this.reserveScript = defineRedisScript(redis, RESERVE_SCRIPT);
    this.refundScript = defineRedisScript(redis, REFUND_SCRIPT);
  }

  private key(userId: string): string {
    return `${this.keyPrefix}totp:failures:${userId}`;
  }

  /**
   * Runs `check` under the budget: a `totp:invalid_code` from it counts as
   * a failure; success or any other outcome is not counted.
   */
  async guard<T>(userId: string, check: () => Promise<T>): Promise<T> {
    const waitMs = Number(
      await this.reserveScript([this.key(userId)], [this.settings.maxFailures, this.settings.windowSeconds * 1000]),
    );
    if (waitMs > 0) {
      throw new AppError('rate_limit:exceeded', undefined, { retryAfterSeconds: Math.ceil(waitMs / 1000) });
    }
    let result: T;
    try {
      result = await check();
    } catch (error) {
      const wrongCode = error instanceof AppError && error.code === 'totp:invalid_code';
      if (!wrongCode) await this.refund(userId);
      throw error;
    }
    await this.refund(userId);
    return result;
  }

  async clear(userId: string): Promise<void> {
    await this.redis.del(this.key(userId));
  }

  /** Best effort: a refund that fails costs the user one unit, and must not hide the outcome of the check. */
  private async refund(userId: string): Promise<void> {
    await this.refundScript([this.key(userId)]).catch(() => undefined);
  }
}
