import { sign } from 'node:crypto';
import type { orgsV1 } from '@latchkey/contracts';
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
 * The JOSE `typ` of service tokens. The OpenID Provider's ID tokens are
 * signed with the same keys, so a service token is typed apart (RFC 8725,
 * 3.11: explicit typing) and carries a claim ID tokens never do; a
 * verifier that checks either never takes one for the other.
 */
const SERVICE_TOKEN_TYPE = 'latchkey-service+jwt';
const SERVICE_TOKEN_USE = 'service';

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

  /**
   * A token for the session; with the organisation it acts for, as the
   * membership stands now, its `org_*` claims (docs/api.md, "Organisations").
   */
  issue(session: Session, organization?: orgsV1.Organization): { token: string; expiresAt: Date } {
    const key = signingKeyFor(this.settings.keys, 'EdDSA');
    if (!key) throw new Error('no Ed25519 signing key');
    const issuedAt = Math.floor(this.clock() / 1000);
    const expiresAt = issuedAt + this.settings.ttlSeconds;
    const header = { alg: 'EdDSA', kid: key.kid, typ: SERVICE_TOKEN_TYPE };
    const claims = {
      token_use: SERVICE_TOKEN_USE,
      sid: session.publicId,
      auth_time: Math.floor(session.authenticatedAt / 1000),
      amr: [...session.methods],
      sub: session.userId,
      iss: this.settings.issuer,
      aud: this.settings.audience,
      iat: issuedAt,
      exp: expiresAt,
      ...(organization
        ? { org_id: organization.id, org_slug: organization.slug, org_role: organization.role, org_permissions: organization.permissions }
        : {}),
    };
    // A compact JWS (RFC 7515) signed by node:crypto at once: WebCrypto's sign, which a JWT library
    // goes through, queues each signature on libuv's thread pool and took four times as long per token.
    const signingInput = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
    const signature = sign(null, Buffer.from(signingInput), key.privateKey).toString('base64url');
    return { token: `${signingInput}.${signature}`, expiresAt: new Date(expiresAt * 1000) };
  }

  /** The JWK set of GET /.well-known/jwks.json. */
  jwks(): { keys: PublicJwk[] } {
    return { keys: this.settings.keys.map((key) => key.publicJwk) };
  }
}

function base64url(text: string): string {
  return Buffer.from(text).toString('base64url');
}
