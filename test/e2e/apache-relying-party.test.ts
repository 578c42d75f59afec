import { randomBytes } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { freePort } from '@latchkey/test-kit';
import { signedInAccount } from '../support/accounts';
import { SiteBrowser, startApacheRelyingParty, type ApacheRelyingParty } from '../support/apache-relying-party';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { ISSUER, OidcBrowser } from '../support/oidc-relying-party';

/**
 * docs/oidc.md, "Keys": a relying party that is not openid-client signs a
 * Latchkey user in. Debian's mod_auth_openidc (OpenID Certified; its JOSE
 * library, cjose, verifies RS256 and ES256 but not EdDSA) guards a page
 * that prints the claims it passes on, for a client whose entry names no
 * ID token algorithm and so gets RS256. The browser is plain HTTP: it
 * follows redirects and keeps each host's cookies.
 */
let stack: E2eStack;
let apache: ApacheRelyingParty;
let site: string;
const CLIENT_SECRET = randomBytes(32).toString('base64url');

beforeAll(async () => {
  const port = await freePort();
  site = `http://127.0.0.1:${port}`;
  stack = await startE2eStack('apache', {
    PUBLIC_APP_URL: ISSUER,
    OIDC_CLIENTS: JSON.stringify([{ client_id: 'apache', client_name: 'Apache', client_secret: CLIENT_SECRET, redirect_uris: [`${site}/protected/redirect_uri`] }]),
  });
  apache = await startApacheRelyingParty({ gatewayUrl: stack.gatewayUrl, port, clientId: 'apache', clientSecret: CLIENT_SECRET });
}, 90_000);

afterAll(async () => {
  await apache?.stop();
  await stack?.destroy();
});

/** The answer, or a failure that shows what Apache logged about it. */
function answered<T extends { status: number; text: string }>(response: T, status: number): T {
  if (response.status !== status) throw new Error(`Apache answered ${response.status}, not ${status}:\n${response.text}\n--- Apache's log ---\n${apache.output().slice(-4000)}`);
  return response;
}

it('serves the protected page to a user who signed in at Latchkey, with the claims of the RS256 ID token it verified', async () => {
  const account = await signedInAccount(stack, 'apache');
  const browser = new OidcBrowser(account.client, stack.gatewayUrl);
  const atSite = new SiteBrowser(site);

  const challenge = answered(await atSite.open('/protected/claims'), 302);
  const authorization = new URL(challenge.location!);
  expect(authorization.origin + authorization.pathname).toBe(`${ISSUER}/oidc/auth`);
  expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');

  const consent = await browser.navigate(authorization);
  const uid = OidcBrowser.interactionUid(consent.url);
  const interaction = await account.client.get(`/v0/oidc/interactions/${uid}`);
  expect(interaction.body).toMatchObject({ prompt: 'consent', client: { client_id: 'apache', client_name: 'Apache' } });
  const confirmed = await account.client.post<{ redirect_to: string }>(`/v0/oidc/interactions/${uid}/confirm`);
  expect(confirmed.status).toBe(200);
  const { url: callback } = await browser.navigate(confirmed.body.redirect_to);
  expect(callback.origin + callback.pathname).toBe(`${site}/protected/redirect_uri`);

  // Apache exchanges the code, verifies the ID token against /oidc/jwks and sends the browser back to the page.
  const back = answered(await atSite.open(`${callback.pathname}${callback.search}`), 302);
  expect(new URL(back.location!, site).pathname).toBe('/protected/claims');
  const page = answered(await atSite.open('/protected/claims'), 200);
  const printed = Object.fromEntries(page.text.trim().split('\n').map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
  expect(printed).toMatchObject({ sub: account.id, email: account.email, preferred_username: account.handle });
  expect(decodeProtectedHeader(printed.id_token!)).toMatchObject({ alg: 'RS256' });
  expect(decodeJwt(printed.id_token!)).toMatchObject({ iss: ISSUER, aud: 'apache', sub: account.id, email: account.email, preferred_username: account.handle });
});
