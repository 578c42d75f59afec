import { hkdfSync } from 'node:crypto';
import type { SigningKey } from '@latchkey/config';
import type { Configuration } from 'oidc-provider';

/** What the cookie keys are derived for: a key never serves two purposes. */
const COOKIE_KEY_INFO = 'latchkey oidc-provider cookie signing';

/**
 * The provider's own cookies: its session, and the interaction and resume
 * ids of a sign-in in progress. They are signed (oidc-provider signs every
 * cookie once it has keys), so that a browser cannot make them name
 * another session or interaction, with keys derived from
 * AUTH_JWT_SIGNING_KEYS: no secret of their own to provision, and a key
 * rotation keeps the old keys verifying while they are listed. Where the
 * issuer is HTTPS they carry the prefixes browsers enforce: `__Host-` for
 * the session (Secure, Path=/, no Domain), `__Secure-` for the two that
 * oidc-provider scopes to a path of their own.
 */
export function providerCookies(issuer: string, keys: readonly SigningKey[]): NonNullable<Configuration['cookies']> {
  const secure = new URL(issuer).protocol === 'https:';
  return {
    names: {
      session: secure ? '__Host-oidc_session' : 'oidc_session',
      interaction: secure ? '__Secure-oidc_interaction' : 'oidc_interaction',
      resume: secure ? '__Secure-oidc_resume' : 'oidc_resume',
    },
    long: { httpOnly: true, sameSite: 'lax' },
    short: { httpOnly: true, sameSite: 'lax' },
    keys: keys.map((key) =>
      Buffer.from(hkdfSync('sha256', key.privateKey.export({ format: 'der', type: 'pkcs8' }), key.kid, COOKIE_KEY_INFO, 32)),
    ),
  };
}
