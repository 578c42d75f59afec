import { defineRedisScript, execTransaction, type RedisScript, type RedisClient } from '@latchkey/db';
import { generateOpaqueToken, hashOpaqueToken, sameTokenHash } from '@latchkey/opaque-token';
import type { SealedSecret } from '@latchkey/secret-box';

/** docs/api.md, "Second factor (TOTP)": the setup token lives 10 minutes. */
export const SETUP_TOKEN_TTL_SECONDS = 600;

/** Deletes the record only while it still holds the token being used, so that a newer setup survives. */
const CONSUME_SCRIPT = `
if redis.call('HGET', KEYS[1], 'token_hash') == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`;

/**
 * Pending TOTP setups in Redis, one per user: the setup token's hash and the
 * new secret, sealed like an enabled one. Keyed by user id, so that the
 * token only works for the user it was issued to and a newer setup replaces
 * an older one.
 */
export class SetupTokens {
  private readonly consumeScript: RedisScript;

  constructor(
    private readonly redis: RedisClient,
    private readonly keyPrefix: string,
  ) {
    this.consumeScript = defineRedisScript(redis, CONSUME_SCRIPT);
  }

  key(userId: string): string {
    return `${this.keyPrefix}totp:setup:${userId}`;
  }

  async issue(userId: string, sealedSecret: SealedSecret, nowMs: number): Promise<{ token: string; expiresAt: Date }> {
    const token = generateOpaqueToken();
    const key = this.key(userId);
    await execTransaction(
      this.redis
        .multi()
        .del(key)
        .hset(key, {
          token_hash: hashOpaqueToken(token),
          key_id: sealedSecret.keyId,
          ciphertext: sealedSecret.ciphertext.toString('base64'),
        })
        .expire(key, SETUP_TOKEN_TTL_SECONDS),
    );
    return { token, expiresAt: new Date(nowMs + SETUP_TOKEN_TTL_SECONDS * 1000) };
  }

  /** The sealed secret the token binds to this user, or undefined for an unknown, expired or foreign token. */
  async find(userId: string, token: string): Promise<SealedSecret | undefined> {
    const record = await this.redis.hgetall(this.key(userId));
    const { token_hash: tokenHash, key_id: keyId, ciphertext } = record;
    if (!tokenHash || !keyId || !ciphertext) return undefined;
    if (!sameTokenHash(tokenHash, hashOpaqueToken(token))) return undefined;
    return { keyId, ciphertext: Buffer.from(ciphertext, 'base64') };
  }

  /** Uses the token up after a successful enable. */
  async consume(userId: string, token: string): Promise<void> {
    await this.consumeScript([this.key(userId)], [hashOpaqueToken(token)]);
  }

  async deleteFor(userId: string): Promise<void> {
    await this.redis.del(this.key(userId));
  }
}
