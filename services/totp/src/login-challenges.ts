import { defineRedisScript, deleteEach, execTransaction, type RedisScript, type RedisClient } from '@latchkey/db';
import { generateOpaqueToken, hashOpaqueToken } from '@latchkey/opaque-token';

/** docs/api.md, "Second factor (TOTP)": the temporary token dies after 5 wrong codes. */
export const MAX_CHALLENGE_ATTEMPTS = 5;

/**
 * How long a record outlives its `expires_at`, so that a late attempt is
 * told `totp:temp_token_expired` rather than `totp:temp_token_invalid`.
 */
const EXPIRED_RECORD_RETENTION_SECONDS = 3_600;

/**
 * Takes one attempt of a challenge, atomically: of any number of parallel
 * guesses at most MAX_CHALLENGE_ATTEMPTS get through. Answers
 * {'unknown'}, {'dead'}, {'expired'} or {'reserved', user_id, attempt,
 * first_factor, session_epoch, organization_id}.
 */
const RESERVE_SCRIPT = `
local record = redis.call('HMGET', KEYS[1], 'user_id', 'expires_at', 'attempts', 'first_factor', 'session_epoch', 'organization_id')
if not record[1] then return {'unknown'} end
if tonumber(record[3]) >= tonumber(ARGV[2]) then return {'dead'} end
if tonumber(record[2]) <= tonumber(ARGV[1]) then return {'expired'} end
local attempt = redis.call('HINCRBY', KEYS[1], 'attempts', 1)
return {'reserved', record[1], attempt, record[4] or 'pwd', tonumber(record[5] or '0'), record[6] or ''}`;

/** Gives an attempt back when it did not test a code (the user was rate limited, or no backup code was left). */
const RELEASE_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.call('HINCRBY', KEYS[1], 'attempts', -1)
end
return 0`;

/** How the first factor of a sign-in was proved (RFC 8176): a password, or an identity provider. */
export type FirstFactor = 'pwd' | 'fed';

/** What a challenge remembers of the first step of its sign-in. */
export interface FirstStep {
  readonly firstFactor: FirstFactor;
  /** The account's credential epoch when the first factor was proved. */
  readonly sessionEpoch: number;
  /** The organisation the session is to act for (an SSO connection's); undefined for none. */
  readonly organizationId?: string | undefined;
}

export type AttemptReservation =
  | ({ readonly outcome: 'reserved'; readonly userId: string; readonly attempt: number } & FirstStep)
  | { readonly outcome: 'unknown' | 'dead' | 'expired' };

function parseReservation(reply: unknown): AttemptReservation {
  if (!Array.isArray(reply)) throw new Error('unexpected reply from the challenge script');
  const [outcome, userId, attempt, firstFactor, sessionEpoch, organizationId] = reply as unknown[];
  if (outcome === 'reserved' && typeof userId === 'string' && typeof attempt === 'number' && typeof sessionEpoch === 'number') {
    const organization = typeof organizationId === 'string' && organizationId !== '' ? organizationId : undefined;
    return { outcome, userId, attempt, firstFactor: firstFactor === 'fed' ? 'fed' : 'pwd', sessionEpoch, organizationId: organization };
  }
  if (outcome === 'unknown' || outcome === 'dead' || outcome === 'expired') return { outcome };
  throw new Error('unexpected reply from the challenge script');
}

/**
 * Temporary login tokens (the second step of a login with TOTP) in Redis.
 * A record holds the user id, the attempts made and `expires_at`; its key
 * is the token's hash. A per-user set lists a user's records, so that
 * account deletion can remove them.
 */
export class LoginChallenges {
  private readonly reserveScript: RedisScript;
  private readonly releaseScript: RedisScript;

  constructor(
    private readonly redis: RedisClient,
    private readonly keyPrefix: string,
    private readonly ttlSeconds: number,
  ) {
    this.reserveScript = defineRedisScript(redis, RESERVE_SCRIPT);
    this.releaseScript = defineRedisScript(redis, RELEASE_SCRIPT);
  }

  /** The Redis key of a token's record. */
  key(token: string): string {
    return this.keyForHash(hashOpaqueToken(token));
  }

  private keyForHash(tokenHash: string): string {
    return `${this.keyPrefix}totp:challenge:${tokenHash}`;
  }

  private userIndexKey(userId: string): string {
    return `${this.keyPrefix}totp:challenges-of:${userId}`;
  }

  async issue(userId: string, nowMs: number, firstStep: FirstStep): Promise<{ token: string; expiresAt: Date }> {
    const token = generateOpaqueToken();
    const tokenHash = hashOpaqueToken(token);
    const expiresAtMs = nowMs + this.ttlSeconds * 1000;
    const retentionSeconds = this.ttlSeconds + EXPIRED_RECORD_RETENTION_SECONDS;
    const key = this.keyForHash(tokenHash);
    const index = this.userIndexKey(userId);
    // The index first (record and index are in different slots of a Redis
    // Cluster): deleteFor must find every record, and an entry whose record
    // was never written costs nothing.
    await execTransaction(this.redis.multi().sadd(index, tokenHash).expire(index, retentionSeconds));
    await execTransaction(
      this.redis
        .multi()
        .hset(key, {
          user_id: userId,
          attempts: 0,
          expires_at: expiresAtMs,
          first_factor: firstStep.firstFactor,
          session_epoch: firstStep.sessionEpoch,
          ...(firstStep.organizationId === undefined ? {} : { organization_id: firstStep.organizationId }),
        })
        .expire(key, retentionSeconds),
    );
    return { token, expiresAt: new Date(expiresAtMs) };
  }

  async reserveAttempt(token: string, nowMs: number): Promise<AttemptReservation> {
    const reply = await this.reserveScript([this.key(token)], [nowMs, MAX_CHALLENGE_ATTEMPTS]);
    return parseReservation(reply);
  }

  async releaseAttempt(token: string): Promise<void> {
    await this.releaseScript([this.key(token)]);
  }

  /**
   * Ends a challenge: on success (single use) or when its last attempt
   * failed. Answers whether this call was the one that ended it.
   */
  async end(token: string): Promise<boolean> {
    return (await this.redis.del(this.key(token))) === 1;
  }

  async deleteFor(userId: string): Promise<void> {
    const index = this.userIndexKey(userId);
    const hashes = await this.redis.smembers(index);
    await deleteEach(
      this.redis,
      hashes.map((hash) => this.keyForHash(hash)),
    );
    await this.redis.del(index);
  }
}
