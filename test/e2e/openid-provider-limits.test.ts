import { startE2eStack, type E2eStack } from '../support/e2e-stack';

/**
 * docs/oidc.md, "Limits" and "Device flow", on a stack of its own: the
 * web app (PUBLIC_APP_URL) and the issuer on different origins, and the
 * per-address limits of the provider's endpoints set low.
 */
const APP = 'http://app.localhost';
const ISSUER = 'http://id.localhost';
const AUTHORIZE_MAX = 3;
const TOKEN_MAX = 3;
let stack: E2eStack;

beforeAll(async () => {
  stack = await startE2eStack('oidc-limits', {
    PUBLIC_APP_URL: APP,
    OIDC_ISSUER: ISSUER,
    OIDC_CLIENTS: JSON.stringify([
      { client_id: 'tv', client_name: 'TV', token_endpoint_auth_method: 'none', grant_types: ['urn:ietf:params:oauth:grant-type:device_code'] },
      { client_id: 'spa', client_name: 'SPA', token_endpoint_auth_method: 'none', first_party: true, redirect_uris: [`${APP}/callback`] },
    ]),
    RATE_LIMIT_OIDC_AUTHORIZE_MAX: String(AUTHORIZE_MAX),
    RATE_LIMIT_OIDC_TOKEN_MAX: String(TOKEN_MAX),
  });
}, 90_000);

afterAll(async () => {
  await stack?.destroy();
});

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

it('sends a device’s user to the web app’s /device, on its own origin, and counts authorization requests per address', async () => {
  const discovery = (await (await fetch(`${stack.gatewayUrl}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
  expect(discovery.device_authorization_endpoint).toBe(`${ISSUER}/oidc/device/auth`);

  const started = await fetch(`${stack.gatewayUrl}/oidc/device/auth`, form({ client_id: 'tv', scope: 'openid' }));
  expect(started.status).toBe(200);
  const device = (await started.json()) as { user_code: string; verification_uri: string; verification_uri_complete: string };
  expect(device.verification_uri).toBe(`${APP}/device`);
  expect(device.verification_uri_complete).toBe(`${APP}/device?user_code=${encodeURIComponent(device.user_code)}`);

  // The device authorization above was the first of AUTHORIZE_MAX; the sign-in requests take the rest.
  const signIn = `${stack.gatewayUrl}/oidc/auth?${new URLSearchParams({
    client_id: 'spa',
    response_type: 'code',
    scope: 'openid',
    redirect_uri: `${APP}/callback`,
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  }).toString()}`;
  for (let request = 1; request < AUTHORIZE_MAX; request += 1) {
    const answer = await fetch(signIn, { redirect: 'manual' });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toMatch(new RegExp(`^${APP}/oidc/interaction/`));
  }
  const refused = await fetch(signIn, { redirect: 'manual' });
  expect(refused.status).toBe(429);
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(await refused.json()).toMatchObject({ error: 'temporarily_unavailable' });
  expect(refused.headers.getSetCookie()).toEqual([]);
});

it('counts token, introspection and revocation requests per address, and answers OAuth errors', async () => {
  const token = `${stack.gatewayUrl}/oidc/token`;
  for (let request = 0; request < TOKEN_MAX; request += 1) {
    const answer = await fetch(token, form({ grant_type: 'authorization_code', client_id: 'spa', code: 'nope', code_verifier: 'x'.repeat(43), redirect_uri: `${APP}/callback` }));
    expect(answer.status).toBe(400);
  }
  for (const path of ['/oidc/token', '/oidc/token/introspection', '/oidc/token/revocation']) {
    const answer = await fetch(`${stack.gatewayUrl}${path}`, form({ client_id: 'spa', token: 'nope' }));
    expect({ path, status: answer.status }).toEqual({ path, status: 429 });
    expect(await answer.json()).toMatchObject({ error: 'temporarily_unavailable' });
  }
});
