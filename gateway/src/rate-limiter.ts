import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

export interface RateDecision {
  readonly allowed: boolean;
  readonly count: number;
  /** Seconds until the window ends. */
  readonly retryAfterSeconds: number;
}

/** INCR and, for a new window, its expiry, atomically: two requests cannot both start a window. */
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

/**
 * Fixed-window counters in Redis, shared by every gateway replica. Keys
 * that name an account are hashed, so Redis holds no email addresses.
 */
export class RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /** Counts one event and says whether it is within `limit` per `windowSeconds`. */
  async hit(scope: string, subject: string, limit: number, windowSeconds: number): Promise<RateDecision> {
    const [count, ttl] = (await this.redis.eval(HIT_SCRIPT, 1, this.key(scope, subject), windowSeconds * 1000)) as [
      number,
      number,
    ];
    return { allowed: count <= limit, count, retryAfterSeconds: Math.max(1, Math.ceil(ttl / 1000)) };
  }

  /** Reads a counter without counting, e.g. failures before an attempt. */
  async peek(scope: string, subject: string, limit: number): Promise<RateDecision> {
    const key = this.key(scope, subject);
    const [[, count], [, ttl]] = (await this.redis.multi().get(key).pttl(key).exec()) as [
      [Error | null, string | null],
      [Error | null, number],
    ];
    const value = Number(count ?? 0);
    return { allowed: value < limit, count: value, retryAfterSeconds: Math.max(1, Math.ceil(ttl / 1000)) };
  }

  async reset(scope: string, subject: string): Promise<void> {
    await this.redis.del(this.key(scope, subject));
  }

  private key(scope: string, subject: string): string {
    return `${this.prefix}rate:${scope}:${createHash('sha256').update(subject).digest('base64url')}`;
  }
}
