import { createHash } from 'node:crypto';
import { defineRedisScript, type RedisScript, type RedisClient } from '@latchkey/db';

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
  // Replies [count, ttl in milliseconds].
  private readonly hitScript: RedisScript;

  constructor(
    redis: RedisClient,
    private readonly prefix: string,
  ) {
    this.hitScript = defineRedisScript(redis, HIT_SCRIPT);
  }

  /** Counts one event and says whether it is within `limit` per `windowSeconds`. */
  async hit(scope: string, subject: string, limit: number, windowSeconds: number): Promise<RateDecision> {
    const [count, ttl] = (await this.hitScript([this.key(scope, subject)], [windowSeconds * 1000])) as [number, number];
    return { allowed: count <= limit, count, retryAfterSeconds: retryAfter(ttl) };
  }

  private key(scope: string, subject: string): string {
    return `${this.prefix}rate:${scope}:${createHash('sha256').update(subject).digest('base64url')}`;
  }
}

function retryAfter(ttlMs: number): number {
  return Math.max(1, Math.ceil(ttlMs / 1000));
}
