import { fastifyCookie } from '@fastify/cookie';
import type { RedisClient } from '@latchkey/db';
import { generateOpaqueToken, hashOpaqueToken, sameTokenHash } from '@latchkey/opaque-token';

/** What is kept per interaction. */
export interface InteractionBinding {
  /** The SHA-256 of the secret in the browser's binding cookie. */
  readonly browser: string;
  /**
   * When the browser's Latchkey session had last proved who it is as the
   * authorization request came (milliseconds; 0: no session), so that
   * prompt=login is satisfied by a newer proof only. The provider's own
   * interaction records whole seconds, too coarse for a proof made within
   * the second.
   */
  readonly provenAt: number;
}

const SECRET = /^[A-Za-z0-9_-]{43}$/;

/**
 * An authorization request belongs to the browser that started it (OAuth
 * 2.0 Security BCP, section 4.4 on CSRF and mix-up; docs/security.md, "The
 * OpenID Provider"): when the provider sends a browser to the interaction,
 * the browser gets a binding cookie (HttpOnly, `__Host-` where cookies are
 * Secure) and the interaction keeps the hash of its value. Reading,
 * confirming or denying the interaction needs that cookie, so a link to
 * someone else's interaction opens nothing.
 *
 * The cookie's value is one secret per browser, reused while it lives, so
 * that two sign-ins in two tabs do not undo each other; each interaction
 * stores its hash beside the uid in Redis for as long as the interaction
 * lives.
 */
export class InteractionBindings {
  readonly cookieName: string;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly secure: boolean,
  ) {
    this.cookieName = secure ? '__Host-oidc_binding' : 'oidc_binding';
  }

  /** The secret this browser is bound by: the one its Cookie header carries, or a new one. */
  secretIn(cookieHeader: string | undefined): string {
    const held = cookieHeader ? fastifyCookie.parse(cookieHeader)[this.cookieName] : undefined;
    return held !== undefined && SECRET.test(held) ? held : generateOpaqueToken();
  }

  /** The binding cookie's attributes, kept `ttlSeconds` more. */
  cookieOptions(ttlSeconds: number) {
    return { httpOnly: true, sameSite: 'lax', path: '/', secure: this.secure, maxAge: ttlSeconds } as const;
  }

  /** The Set-Cookie header that keeps `secret` in the browser, for an answer Fastify does not send (the provider's). */
  setCookieHeader(secret: string, ttlSeconds: number): string {
    return fastifyCookie.serialize(this.cookieName, secret, this.cookieOptions(ttlSeconds));
  }

  /** Binds an interaction that lives `ttlSeconds` to the browser holding `secret`. */
  async bind(uid: string, secret: string, provenAt: number, ttlSeconds: number): Promise<void> {
    const binding: InteractionBinding = { browser: hashOpaqueToken(secret), provenAt };
    await this.redis.set(this.key(uid), JSON.stringify(binding), 'EX', Math.max(1, ttlSeconds));
  }

  /** The binding of an interaction, whoever asks (the provider's own checks). */
  async find(uid: string): Promise<InteractionBinding | undefined> {
    const raw = await this.redis.get(this.key(uid));
    return raw === null ? undefined : (JSON.parse(raw) as InteractionBinding);
  }

  /** The binding of an interaction when `secret` (the browser's cookie) is the one it was bound to; else undefined. */
  async heldBy(uid: string, secret: string | undefined): Promise<InteractionBinding | undefined> {
    if (secret === undefined || !SECRET.test(secret)) return undefined;
    const binding = await this.find(uid);
    return binding && sameTokenHash(binding.browser, hashOpaqueToken(secret)) ? binding : undefined;
  }

  private key(uid: string): string {
    return `${this.prefix}oidc:binding:${uid}`;
  }
}
