import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { generateOpaqueToken, hashOpaqueToken } from '@latchkey/opaque-token';

/**
 * docs/api.md, "Sign-in with a provider (OAuth)": the authorize call leaves
 * a secret in the browser that asked for it, and the oauth service stores
 * its hash with the state.
 * Login, link and reauthenticate present the hash of what the browser sends back, so a
 * state (with its code) that an attacker obtained for their own account
 * cannot be completed in the victim's browser (login CSRF).
 */
export const BROWSER_BINDING_COOKIE = 'oauth_binding';
const COOKIE_PATH = '/v0/auth/oauth';
/** As long as a state lives by default (OAUTH_STATE_TTL_SECONDS). */
const MAX_AGE_SECONDS = 600;

/** Sets a fresh binding cookie and answers the hash the state is stored with. */
export function bindBrowser(reply: FastifyReply, secure: boolean): string {
  const secret = generateOpaqueToken();
  void reply.setCookie(BROWSER_BINDING_COOKIE, secret, { httpOnly: true, sameSite: 'lax', path: COOKIE_PATH, secure, maxAge: MAX_AGE_SECONDS });
  return hashOpaqueToken(secret);
}

/**
 * The hash of the binding this browser holds, or '' when it holds none (the
 * state then does not match). The cookie is cleared: a state is used up by
 * its first completion either way.
 */
export function takeBrowserBinding(request: FastifyRequest, reply: FastifyReply, secure: boolean): string {
  const secret = request.cookies[BROWSER_BINDING_COOKIE];
  void reply.clearCookie(BROWSER_BINDING_COOKIE, { httpOnly: true, sameSite: 'lax', path: COOKIE_PATH, secure });
  return secret ? hashOpaqueToken(secret) : '';
}
