import type { RedisClient } from '@latchkey/db';

/**
 * prompt=login asks for a sign-in newer than the request: what the
 * browser's session had proven when the request came is kept per
 * interaction, in milliseconds (the provider's own interaction records
 * whole seconds only), so that confirming can tell a fresh proof from the
 * one the request was made with.
 */
export class InteractionProofs {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  /** Keeps the session's last proof time (0: no session) for an interaction that lives `ttlSeconds`. */
  async record(uid: string, authenticatedAt: number, ttlSeconds: number): Promise<void> {
    await this.redis.set(this.key(uid), String(authenticatedAt), 'EX', Math.max(1, ttlSeconds));
  }

  /** The proof time kept for an interaction, or undefined when none was (no prompt=login). */
  async recorded(uid: string): Promise<number | undefined> {
    const value = await this.redis.get(this.key(uid));
    return value === null ? undefined : Number(value);
  }

  private key(uid: string): string {
    return `${this.prefix}oidc:login-prompt:${uid}`;
  }
}
