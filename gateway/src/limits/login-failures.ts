import { createHash } from 'node:crypto';
import { normalizeEmail } from '@latchkey/account-fields';
import { defineRedisScript, type RedisScript, type RedisClient } from '@latchkey/db';
import type { RateDecision } from './rate-limiter';

/** The field of an account's hash that counts its failures from every client. */
const ALL_CLIENTS = '*';

/**
 * Takes a place for one attempt in the client's count and the account's, if
 * both have room, before the password is checked: parallel guesses cannot
 * all pass a check made before any of them is counted. The window starts
 * with the account's first failure.
 */
const RESERVE_SCRIPT = `
local client = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
local all = tonumber(redis.call('HGET', KEYS[1], '${ALL_CLIENTS}') or '0')
if client >= tonumber(ARGV[2]) or all >= tonumber(ARGV[3]) then
  return {0, redis.call('PTTL', KEYS[1])}
end
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('HINCRBY', KEYS[1], '${ALL_CLIENTS}', 1)
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[4]) end
return {1, 0}`;

/** Gives back one reserved place: the attempt was not a wrong password. */
const GIVE_BACK_SCRIPT = `
if tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0') > 0 then redis.call('HINCRBY', KEYS[1], ARGV[1], -1) end
if tonumber(redis.call('HGET', KEYS[1], '${ALL_CLIENTS}') or '0') > 0 then redis.call('HINCRBY', KEYS[1], '${ALL_CLIENTS}', -1) end
return 1`;

/**
 * A right password: the client's failures (and its reserved place) are
 * forgiven, and taken off the account's count; other clients' stay.
 */
const SUCCEEDED_SCRIPT = `
local client = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if client == 0 then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
local all = tonumber(redis.call('HGET', KEYS[1], '${ALL_CLIENTS}') or '0')
redis.call('HSET', KEYS[1], '${ALL_CLIENTS}', math.max(0, all - client))
return client`;

export interface LoginFailureSettings {
  /** Wrong passwords per account from one client per window. */
  readonly perClient: number;
  /** Wrong passwords per account from all clients per window: the ceiling against distributed guessing. */
  readonly perAccount: number;
  readonly windowSeconds: number;
  /** What the counts are of, in their Redis keys; `login-failures` unless another kind of guess is counted. */
  readonly scope?: string;
}

/**
 * Wrong passwords per account, in one Redis hash per account: a field per
 * client (address or IPv6 prefix) and one for all clients. Failures from one
 * client never refuse the right password from another, so nobody can lock
 * the owner out from their own address; the per-account ceiling still binds
 * guessers spread over many addresses. The hash holds at most `perAccount`
 * client fields and expires with its window. Keys are hashed, so Redis holds
 * no email addresses.
 */
export class LoginFailures {
  private readonly reserveScript: RedisScript;
  private readonly giveBackScript: RedisScript;
  private readonly succeededScript: RedisScript;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly settings: LoginFailureSettings,
  ) {
    this.reserveScript = defineRedisScript(redis, RESERVE_SCRIPT);
    this.giveBackScript = defineRedisScript(redis, GIVE_BACK_SCRIPT);
    this.succeededScript = defineRedisScript(redis, SUCCEEDED_SCRIPT);
  }

  /** Counts the attempt as a failure in advance, or refuses it when either count is full. */
  async reserve(account: string, client: string): Promise<RateDecision> {
    const { perClient, perAccount, windowSeconds } = this.settings;
    const [allowed, ttl] = (await this.reserveScript([this.key(account)], [client, perClient, perAccount, windowSeconds * 1000])) as [
      number,
      number,
    ];
    return { allowed: allowed === 1, count: 0, retryAfterSeconds: Math.max(1, Math.ceil(ttl / 1000)) };
  }

  /** The attempt was answered otherwise than with a wrong password (unverified email, an outage). */
  async giveBack(account: string, client: string): Promise<void> {
    await this.giveBackScript([this.key(account)], [client]);
  }

  async succeeded(account: string, client: string): Promise<void> {
    await this.succeededScript([this.key(account)], [client]);
  }

  /** Every count of the account, as after a password reset that the mailbox proved. */
  async clear(account: string): Promise<void> {
    await this.redis.del(this.key(account));
  }

  private key(account: string): string {
    return `${this.prefix}rate:${this.settings.scope ?? 'login-failures'}:${createHash('sha256').update(normalizeEmail(account)).digest('base64url')}`;
  }
}
