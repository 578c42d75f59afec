import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { generateOpaqueToken, hashOpaqueToken } from '@latchkey/opaque-token';

/**
 * A ceremony that starts in one request and ends in a later one (an OAuth
 * redirect, a passkey sign-in) leaves a secret in the browser that started
 * it; the service keeps only its hash with the ceremony's state. The end
 * presents the hash of what the browser sends back, so that a state an
 * attacker obtained for their own account cannot be completed in a victim's
 * browser (login CSRF), and one browser's challenge is no use in another.
 */
export class BrowserBinding {
  constructor(
    /** The cookie's name. */
    readonly cookie: string,
    private readonly settings: {
      readonly path: string;
      readonly maxAgeSeconds: number;
      /** `lax` unless the ceremony ends in a cross-site POST, which a Lax cookie does not follow. */
      readonly sameSite?: 'lax' | 'none';
    },
  ) {}

  /** Sets a fresh binding cookie and answers the hash the ceremony is kept under. */
  bind(reply: FastifyReply, secure: boolean): string {
    const secret = generateOpaqueToken();
    void reply.setCookie(this.cookie, secret, { ...this.cookieOptions(secure), maxAge: this.settings.maxAgeSeconds });
    return hashOpaqueToken(secret);
  }

  /**
   * The hash of the binding this browser holds, or '' when it holds none (the
   * ceremony then does not match). The cookie is cleared: a ceremony is used
   * up by its first completion either way.
   */
  take(request: FastifyRequest, reply: FastifyReply, secure: boolean): string {
    const secret = request.cookies[this.cookie];
    void reply.clearCookie(this.cookie, this.cookieOptions(secure));
    return secret ? hashOpaqueToken(secret) : '';
  }

  private cookieOptions(secure: boolean) {
    return { httpOnly: true, sameSite: this.settings.sameSite ?? 'lax', path: this.settings.path, secure } as const;
  }
}

/** docs/api.md, "Sign-in with a provider (OAuth)": as long as a state lives by default (OAUTH_STATE_TTL_SECONDS). */
export const oauthBrowserBinding = new BrowserBinding('oauth_binding', { path: '/v0/auth/oauth', maxAgeSeconds: 600 });

/**
 * docs/api.md, "Passkeys": as long as a sign-in challenge lives. Its path
 * covers POST /v0/auth/reauthenticate too, which also takes an assertion.
 */
export const passkeyBrowserBinding = new BrowserBinding('passkey_binding', { path: '/v0/auth', maxAgeSeconds: 300 });

/**
 * Enterprise SSO (docs/sso.md, "The browser binding"): a SAML response
 * comes back as a cross-site POST from the IdP, which carries only a
 * `SameSite=None` cookie, and such a cookie must be `Secure`; `__Host-`
 * pins it to this host and path `/`. Over plain HTTP (COOKIE_SECURE=false,
 * local stacks) no browser keeps a `SameSite=None` cookie, so the binding is
 * Lax, and the ACS re-posts the response from its own page, a same-site POST
 * that carries it.
 */
export const ssoBrowserBindings = {
  secure: new BrowserBinding('__Host-sso_binding', { path: '/', maxAgeSeconds: 600, sameSite: 'none' }),
  plainHttp: new BrowserBinding('sso_binding', { path: '/v0/sso', maxAgeSeconds: 600 }),
} as const;

export function ssoBrowserBinding(secure: boolean): BrowserBinding {
  return secure ? ssoBrowserBindings.secure : ssoBrowserBindings.plainHttp;
}
