import { SignJWT } from 'jose';
import type { Session } from '../sessions/session-store';
import { signingKeyFor, type PublicJwk, type SigningKey } from '@latchkey/config';

export interface ServiceTokenSettings {
  /** The first Ed25519 key signs; all are published. */
  readonly keys: readonly SigningKey[];
  readonly issuer: string;
  readonly audience: string;
  readonly ttlSeconds: number;
}

/**
 * Short-lived JWTs for services that verify requests locally
 * (docs/api.md, "Service tokens"): EdDSA over Ed25519, the session's user
 * and id, when and how the user proved who they are. A token outlives the
 * end of its session by at most its TTL: that is the price of not asking
 * Latchkey per request.
 */
export class ServiceTokens {
  constructor(
    private readonly settings: ServiceTokenSettings,
    private readonly clock: () => number = Date.now,
  ) {}

  async issue(session: Session): Promise<{ token: string; expiresAt: Date }> {
    const key = signingKeyFor(this.settings.keys, 'EdDSA');
    if (!key) throw new Error('no Ed25519 signing key');
    const issuedAt = Math.floor(this.clock() / 1000);
    const expiresAt = issuedAt + this.settings.ttlSeconds;
    const token = await new SignJWT({
      sid: session.publicId,
      auth_time: Math.floor(session.authenticatedAt / 1000),
      amr: [...session.methods],
    })
      .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: 'JWT' })
      .setSubject(session.userId)
      .setIssuer(this.settings.issuer)
      .setAudience(this.settings.audience)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .sign(key.privateKey);
    return { token, expiresAt: new Date(expiresAt * 1000) };
  }

  /** The JWK set of GET /.well-known/jwks.json. */
  jwks(): { keys: PublicJwk[] } {
    return { keys: this.settings.keys.map((key) => key.publicJwk) };
  }
}
