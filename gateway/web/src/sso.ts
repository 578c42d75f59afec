import { api, unwrap } from './api';

/**
 * Where an SSO sign-in started in this tab was going, for its error page
 * only: "Back to sign in" goes towards it again. A successful sign-in
 * needs none of it: the gateway lands the browser there itself, from the
 * request the start kept (`return_to`), in whichever tab the IdP answered.
 * Dropped after a while: an abandoned sign-in must not steer a later one.
 */
const RETURN_KEY = 'latchkey.sso-return';
const RETURN_TTL_MS = 15 * 60 * 1000;

export const ssoReturn = {
  keep: (next: string) => sessionStorage.setItem(RETURN_KEY, JSON.stringify({ next, at: Date.now() })),
  /** The way back, used up by reading it. */
  take: (): string | undefined => {
    const raw = sessionStorage.getItem(RETURN_KEY);
    sessionStorage.removeItem(RETURN_KEY);
    if (!raw) return undefined;
    const { next, at } = JSON.parse(raw) as { next: string; at: number };
    return Date.now() - at < RETURN_TTL_MS ? next : undefined;
  },
};

/** Who signs in through SSO: an email of a verified domain, or the organisation's slug. */
export type SsoTarget = { email: string } | { org_slug: string };

/** What a person typed in the SSO form: an address has an @, anything else is an organisation's slug. */
export function ssoTargetOf(typed: string): SsoTarget {
  const value = typed.trim();
  return value.includes('@') ? { email: value } : { org_slug: value.toLowerCase() };
}

/**
 * docs/api.md, "Enterprise SSO": asks for the identity provider's URL
 * (the gateway binds the flow to this browser with a cookie, and keeps
 * `next`, a path of this app, as where the sign-in returns) and sends the
 * browser there.
 */
export async function startSsoSignIn(target: SsoTarget, next: string): Promise<void> {
  const { authorization_url } = await unwrap(api.POST('/v0/auth/sso/start', { body: { ...target, return_to: next } }));
  ssoReturn.keep(next);
  window.location.assign(authorization_url);
}

/** How the domain of an email signs in (docs/api.md, "Enterprise SSO", home-realm discovery). */
export interface Realm {
  readonly email: string;
  readonly sso: boolean;
  readonly enforced: boolean;
}

/**
 * Looks the email's domain up before a password is sent. A failed look-up
 * (the gateway busy, say) counts as no SSO: the password goes as before,
 * and the gateway still refuses it for an enforcing organisation
 * (auth:sso_required, which the page explains).
 */
export async function discoverRealm(email: string): Promise<Realm> {
  const found = await unwrap(api.POST('/v0/auth/sso/discover', { body: { email } })).catch(() => ({ sso: false, enforced: false }));
  return { email, sso: found.sso, enforced: found.enforced };
}
