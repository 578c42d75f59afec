import { randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { RedisClient } from '@latchkey/db';
import { hashOpaqueToken } from '@latchkey/opaque-token';

const recordSchema = z.object({
  connectionId: z.string().min(1),
  browserBinding: z.string().min(1),
  /** OpenID Connect only: the PKCE verifier and the nonce of the authorization request. */
  codeVerifier: z.string().optional(),
  nonce: z.string().optional(),
  /** Where the sign-in was going in the web app (return-path.ts); absent: its home. */
  returnTo: z.string().optional(),
});

export type SsoRequestRecord = z.output<typeof recordSchema>;

function sameBinding(stored: string, presented: string): boolean {
  const a = Buffer.from(stored);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A SAML AuthnRequest id: `_` and 160 random bits in hex. The `_` makes it
 * an xs:ID (an NCName cannot start with a digit); the bits make it
 * unguessable, so an InResponseTo cannot be made up.
 */
export function newSamlRequestId(): string {
  return `_${randomBytes(20).toString('hex')}`;
}

/**
 * The sign-ins started through connections, in Redis, each bound to the
 * browser that started it (docs/sso.md, "What a response must satisfy"):
 * a SAML AuthnRequest by its id (the InResponseTo of the answer), an OpenID
 * Connect authorization request by its state. Each is single-use: GETDEL
 * reads and removes it in one step, so two answers to one request cannot
 * both pass, and a mismatched one uses it up all the same.
 */
export class SsoRequests {
  constructor(
    private readonly redis: RedisClient,
    private readonly keyPrefix: string,
    private readonly ttlSeconds: number,
  ) {}

  async remember(kind: 'saml' | 'oidc', requestId: string, record: SsoRequestRecord): Promise<void> {
    await this.redis.set(this.key(kind, requestId), JSON.stringify(record), 'EX', this.ttlSeconds);
  }

  /**
   * Uses up a request and answers its record when it was started for this
   * connection by this browser; undefined otherwise (unknown, expired, used,
   * another connection's or another browser's).
   */
  async redeem(kind: 'saml' | 'oidc', requestId: string, expected: { connectionId: string; browserBinding: string }): Promise<SsoRequestRecord | undefined> {
    if (requestId === '') return undefined;
    const stored = await this.redis.getdel(this.key(kind, requestId));
    if (stored === null) return undefined;
    const parsed = recordSchema.safeParse(JSON.parse(stored));
    if (!parsed.success) return undefined;
    const record = parsed.data;
    const matches = record.connectionId === expected.connectionId && sameBinding(record.browserBinding, expected.browserBinding);
    return matches ? record : undefined;
  }

  /**
   * Marks a SAML assertion id as seen until it expires (its
   * NotOnOrAfter plus the allowed skew); false when it was seen already:
   * a replayed assertion. SET NX decides between concurrent posts.
   */
  async markAssertionSeen(connectionId: string, assertionId: string, ttlMs: number): Promise<boolean> {
    const key = `${this.keyPrefix}sso:saml:assertion:${hashOpaqueToken(`${connectionId}\0${assertionId}`)}`;
    return (await this.redis.set(key, '1', 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX')) === 'OK';
  }

  private key(kind: 'saml' | 'oidc', requestId: string): string {
    return `${this.keyPrefix}sso:${kind}:request:${hashOpaqueToken(requestId)}`;
  }
}
