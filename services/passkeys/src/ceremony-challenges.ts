import type { RedisClient } from '@latchkey/db';

/** docs/api.md, "Passkeys": a ceremony's challenge lives 5 minutes and works once. */
export const CHALLENGE_TTL_SECONDS = 300;

/** Registration adds a credential to a signed-in user; authentication proves who someone is. */
export type Ceremony = { readonly kind: 'registration'; readonly userId: string } | { readonly kind: 'authentication' };

/**
 * Challenges of ceremonies in progress, in Redis. Each is kept under the
 * binding its caller gave (the session's id, or the hash of a secret only
 * the starting browser holds), so that an answer is accepted only where the
 * ceremony began; a registration's key also names its user. A newer
 * ceremony of the same binding replaces the older one.
 */
export class CeremonyChallenges {
  constructor(
    private readonly redis: RedisClient,
    private readonly keyPrefix: string,
  ) {}

  private key(ceremony: Ceremony, binding: string): string {
    const scope = ceremony.kind === 'registration' ? `registration:${ceremony.userId}` : 'authentication';
    return `${this.keyPrefix}passkeys:challenge:${scope}:${binding}`;
  }

  async keep(ceremony: Ceremony, binding: string, challenge: string): Promise<void> {
    await this.redis.set(this.key(ceremony, binding), challenge, 'EX', CHALLENGE_TTL_SECONDS);
  }

  /**
   * The challenge kept for this ceremony and binding, removed in the same
   * step: whatever the answer's outcome, it cannot be tried again. Undefined
   * when unknown, used or expired.
   */
  async take(ceremony: Ceremony, binding: string): Promise<string | undefined> {
    return (await this.redis.getdel(this.key(ceremony, binding))) ?? undefined;
  }
}
