import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { defineRedisScript, type RedisScript } from '@latchkey/db';

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

/** Count and TTL as one command: less for the gateway to send and parse than MULTI, GET, PTTL, EXEC. */
const PEEK_SCRIPT = `
return {tonumber(redis.call('GET', KEYS[1])) or 0, redis.call('PTTL', KEYS[1])}`;

/**
 * Fixed-window counters in Redis, shared by every gateway replica. Keys
 * that name an account are hashed, so Redis holds no email addresses.
 */
export class RateLimiter {
  // Both reply [count, ttl in milliseconds].
  private readonly hitScript: RedisScript;
  private readonly peekScript: RedisScript;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    this.hitScript = defineRedisScript(redis, HIT_SCRIPT);
    this.peekScript = defineRedisScript(redis, PEEK_SCRIPT);
  }

  /** Counts one event and says whether it is within `limit` per `windowSeconds`. */
  async hit(scope: string, subject: string, limit: number, windowSeconds: number): Promise<RateDecision> {
    const [count, ttl] = (await this.hitScript([this.key(scope, subject)], [windowSeconds * 1000])) as [number, number];
    return { allowed: count <= limit, count, retryAfterSeconds: retryAfter(ttl) };
  }

  /** Reads a counter without counting, e.g. failures before an attempt. */
  async peek(scope: string, subject: string, limit: number): Promise<RateDecision> {
    const [count, ttl] = (await this.peekScript([this.key(scope, subject)])) as [number, number];
    return { allowed: count < limit, count, retryAfterSeconds: retryAfter(ttl) };
  }

  async reset(scope: string, subject: string): Promise<void> {
    await this.redis.del(this.key(scope, subject));
  }

  private key(scope: string, subject: string): string {
    return `${this.prefix}rate:${scope}:${createHash('sha256').update(subject).digest('base64url')}`;
  }
}

function retryAfter(ttlMs: number): number {
  return Math.max(1, Math.ceil(ttlMs / 1000));
}
