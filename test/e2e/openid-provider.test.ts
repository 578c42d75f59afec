import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { createRemoteJWKSet, decodeJwt, exportJWK, generateKeyPair, jwtVerify, type JWK } from 'jose';
import { Redis } from 'ioredis';
import { testRedisUrl, waitFor } from '@latchkey/test-kit';
import { ApiClient } from '../support/api-client';
import { PASSWORD, mailedToken, noticeMail, signedInAccount } from '../support/accounts';
import { totpCode } from '../support/authenticator';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import {
  ISSUER,
  OidcBrowser,
  authorizationRequest,
  client,
  onGateway,
  relyingParty,
  startBackchannelReceiver,
  verifyLogoutToken,
  type ClientPrivateKey,
} from '../support/oidc-relying-party';

/**
 * docs/oidc.md, end to end: the stack's OpenID Provider driven by a real
 * relying-party library (openid-client 6) and a browser's redirects, with
 * the clients of OIDC_CLIENTS below. One stack for every case, to keep the
 * suite's time.
 */
let stack: E2eStack;
let backchannel: Awaited<ReturnType<typeof startBackchannelReceiver>>;
const WEB_SECRET = randomBytes(32).toString('base64url');
const REDIRECT = 'http://rp.localhost/callback';
let jwtClientKey: Awaited<ReturnType<typeof generateKeyPair>>;

beforeAll(async () => {
  backchannel = await startBackchannelReceiver();
  jwtClientKey = await generateKeyPair('ES256');
  const publicJwk: JWK = { ...(await exportJWK(jwtClientKey.publicKey)), kid: 'rp-key', alg: 'ES256', use: 'sig' };
  const clients = [
    {
      client_id: 'web-app',
      client_secret: WEB_SECRET,
      client_name: 'Web App',
      redirect_uris: [REDIRECT],
      post_logout_redirect_uris: ['http://rp.localhost/signed-out'],
      grant_types: ['authorization_code', 'refresh_token'],
      backchannel_logout_uri: `${backchannel.url}/web-app`,
      backchannel_logout_session_required: true,
    },
    { client_id: 'spa', client_name: 'First-party SPA', token_endpoint_auth_method: 'none', first_party: true, redirect_uris: [REDIRECT] },
    {
      client_id: 'jwt-app',
      client_name: 'JWT App',
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [publicJwk] },
      redirect_uris: [REDIRECT],
      id_token_signed_response_alg: 'ES256',
      backchannel_logout_uri: `${backchannel.url}/jwt-app`,
    },
    {
      client_id: 'jwt-eddsa-app',
      client_name: 'JWT EdDSA App',
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [publicJwk] },
      redirect_uris: [REDIRECT],
      id_token_signed_response_alg: 'EdDSA',
    },
    { client_id: 'down-app', client_name: 'Down App', token_endpoint_auth_method: 'none', first_party: true, redirect_uris: [REDIRECT], backchannel_logout_uri: `${backchannel.url}/down/app` },
    // Signs ID tokens with the same EdDSA keys as service tokens: what a verifier must tell apart by type.
    { client_id: 'eddsa-spa', client_name: 'EdDSA SPA', token_endpoint_auth_method: 'none', first_party: true, id_token_signed_response_alg: 'EdDSA', redirect_uris: [REDIRECT] },
    { client_id: 'mfa-app', client_name: 'MFA App', token_endpoint_auth_method: 'none', first_party: true, require_mfa: true, redirect_uris: [REDIRECT] },
    { client_id: 'tv', client_name: 'TV', token_endpoint_auth_method: 'none', grant_types: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'] },
    {
      client_id: 'mfa-tv',
      client_name: 'MFA TV',
      token_endpoint_auth_method: 'none',
      require_mfa: true,
      grant_types: ['urn:ietf:params:oauth:grant-type:device_code'],
    },
  ];
  stack = await startE2eStack('oidc', {
    PUBLIC_APP_URL: ISSUER,
    OIDC_CLIENTS: JSON.stringify(clients),
    // Re-authentication and max_age are tested against proofs a few seconds old.
    RATE_LIMIT_IP_MAX: '100000',
    JOBS_RETRY_BASE_MS: '200',
  });
}, 90_000);

afterAll(async () => {
  await stack?.destroy();
  await backchannel?.stop();
});

const browserOf = (account: { client: ApiClient }) => new OidcBrowser(account.client, stack.gatewayUrl);

/** Signs in at the provider as a signed-in browser: answers the callback URL, confirming the consent page when there is one. */
async function signInAt(config: client.Configuration, browser: OidcBrowser, parameters: Record<string, string> = {}) {
  const request = await authorizationRequest(config, parameters);
  let { url } = await browser.navigate(request.url);
  if (url.pathname.startsWith('/oidc/interaction/')) {
    const uid = OidcBrowser.interactionUid(url);
    const confirmed = await browser.api.post<{ redirect_to: string }>(`/v0/oidc/interactions/${uid}/confirm`);
    expect(confirmed.status).toBe(200);
    ({ url } = await browser.navigate(confirmed.body.redirect_to));
  }
  expect(url.origin + url.pathname).toBe(REDIRECT);
  return { tokens: await request.exchange(url), request, callback: url };
}

describe('discovery', () => {
  it('publishes the code flow with PKCE S256 only, the endpoints under /oidc, and RS256, EdDSA and ES256 keys', async () => {
    const discovery = await fetch(onGateway(`${ISSUER}/.well-known/openid-configuration`, stack.gatewayUrl));
    expect(discovery.status).toBe(200);
    const metadata = (await discovery.json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: ISSUER,
      authorization_endpoint: `${ISSUER}/oidc/auth`,
      token_endpoint: `${ISSUER}/oidc/token`,
      userinfo_endpoint: `${ISSUER}/oidc/userinfo`,
      jwks_uri: `${ISSUER}/oidc/jwks`,
      end_session_endpoint: `${ISSUER}/oidc/session/end`,
      introspection_endpoint: `${ISSUER}/oidc/token/introspection`,
      revocation_endpoint: `${ISSUER}/oidc/token/revocation`,
      device_authorization_endpoint: `${ISSUER}/oidc/device/auth`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      backchannel_logout_supported: true,
      backchannel_logout_session_supported: true,
    });
    expect(metadata.scopes_supported).toEqual(expect.arrayContaining(['openid', 'profile', 'email', 'offline_access']));
    // OpenID Connect Core 15.1: every provider signs ID tokens with RS256.
    expect(metadata.id_token_signing_alg_values_supported).toEqual(expect.arrayContaining(['RS256', 'EdDSA', 'ES256']));
    const jwks = (await (await fetch(onGateway(`${ISSUER}/oidc/jwks`, stack.gatewayUrl))).json()) as { keys: JWK[] };
    expect(jwks.keys.map((key) => key.alg).sort()).toEqual(['ES256', 'EdDSA', 'RS256']);
    expect(jwks.keys.find((key) => key.alg === 'RS256')).toMatchObject({ kty: 'RSA', use: 'sig', n: expect.any(String), e: expect.any(String) });
    // RFC 7518 6.2.2 and 6.3.2: the private members of EC, OKP and RSA keys.
    for (const key of jwks.keys) for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth']) expect(key).not.toHaveProperty(member);
  });
});

describe('code flow with PKCE', () => {
  it('signs a confidential client in after consent, with the scope claims, acr, amr and sid in the ID token, and remembers the consent', async () => {
    const account = await signedInAccount(stack, 'rp');
    const config = await relyingParty(stack.gatewayUrl, 'web-app', { secret: WEB_SECRET });
    // openid-client checks the ID token's signature against /oidc/jwks, not only its claims.
    client.enableNonRepudiationChecks(config);
    const browser = browserOf(account);
    const request = await authorizationRequest(config, {});
    const { url } = await browser.navigate(request.url);
    const uid = OidcBrowser.interactionUid(url);

    const interaction = await account.client.get(`/v0/oidc/interactions/${uid}`);
    expect(interaction.status).toBe(200);
    expect(interaction.body).toEqual({
      uid,
      prompt: 'consent',
      client: { client_id: 'web-app', client_name: 'Web App' },
      scopes: expect.arrayContaining(['openid', 'email', 'profile']),
      reauthentication_required: false,
      multi_factor_required: false,
      consented: false,
      device: false,
    });
    // The same browser signed out is asked to sign in; another browser is told of no such request.
    const signedOut = new ApiClient(stack.gatewayUrl);
    const binding = { cookie: `oidc_binding=${account.client.cookie('oidc_binding')!}` };
    expect((await signedOut.get(`/v0/oidc/interactions/${uid}`, binding)).body).toMatchObject({ prompt: 'login' });
    expect(await signedOut.get(`/v0/oidc/interactions/${uid}`)).toMatchObject({ status: 404, body: { code: 'oidc:interaction_not_found' } });

    const confirmed = await account.client.post<{ redirect_to: string }>(`/v0/oidc/interactions/${uid}/confirm`);
    expect(confirmed.status).toBe(200);
    const back = await browser.navigate(confirmed.body.redirect_to);
    const tokens = await request.exchange(back.url);
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({
      iss: ISSUER,
      sub: account.id,
      aud: 'web-app',
      email: account.email,
      email_verified: true,
      preferred_username: account.handle,
      acr: 'urn:latchkey:acr:sfa',
      amr: ['pwd'],
    });
    expect(typeof claims.auth_time).toBe('number');
    expect(typeof claims.sid).toBe('string');
    const sessions = await account.client.get<{ items: { id: string; current: boolean }[] }>('/v0/auth/sessions');
    expect(claims.sid).toBe(sessions.body.items.find((session) => session.current)!.id);

    // The ID token is signed by a key of the published set, with RS256: web-app names no algorithm.
    const keys = createRemoteJWKSet(new URL(onGateway(`${ISSUER}/oidc/jwks`, stack.gatewayUrl)));
    const verified = await jwtVerify(tokens.id_token!, keys, { issuer: ISSUER, audience: 'web-app', algorithms: ['RS256'] });
    expect(verified.protectedHeader.alg).toBe('RS256');

    const userinfo = await client.fetchUserInfo(config, tokens.access_token, account.id);
    expect(userinfo).toMatchObject({ sub: account.id, email: account.email, email_verified: true, preferred_username: account.handle });

    // The second time, the consent is remembered: no page at all.
    const again = await authorizationRequest(config, {});
    const direct = await browser.navigate(again.url);
    expect(direct.url.origin + direct.url.pathname).toBe(REDIRECT);
    expect((await again.exchange(direct.url)).claims()!.sub).toBe(account.id);

    const grants = await account.client.get<{ items: { client_id: string; client_name: string; scopes: string[] }[] }>('/v0/oidc/grants');
    expect(grants.status).toBe(200);
    expect(grants.body.items).toEqual([expect.objectContaining({ client_id: 'web-app', client_name: 'Web App', scopes: expect.arrayContaining(['openid', 'email']) })]);
  });

  it('signs a first-party public client in without a page, and refuses a request without PKCE', async () => {
    const account = await signedInAccount(stack, 'spa');
    const config = await relyingParty(stack.gatewayUrl, 'spa');
    const { tokens } = await signInAt(config, browserOf(account));
    expect(tokens.claims()).toMatchObject({ sub: account.id, aud: 'spa' });

    const withoutPkce = new URL(`${ISSUER}/oidc/auth`);
    withoutPkce.search = new URLSearchParams({ client_id: 'spa', response_type: 'code', scope: 'openid', redirect_uri: REDIRECT, state: 's' }).toString();
    const { url } = await browserOf(account).navigate(withoutPkce);
    expect(url.origin + url.pathname).toBe(REDIRECT);
    expect(url.searchParams.get('error')).toBe('invalid_request');
    expect(url.searchParams.get('state')).toBe('s');
  });

  it.each([
    ['ES256', 'jwt-app'],
    ['EdDSA', 'jwt-eddsa-app'],
  ])('authenticates a client with private_key_jwt and signs its ID tokens with %s as it asked', async (alg, clientId) => {
    const account = await signedInAccount(stack, `jwt_${alg.toLowerCase()}`);
    const config = await relyingParty(stack.gatewayUrl, clientId, { privateKey: jwtClientKey.privateKey as ClientPrivateKey });
    client.enableNonRepudiationChecks(config);
    const { tokens } = await signInAt(config, browserOf(account));
    const keys = createRemoteJWKSet(new URL(onGateway(`${ISSUER}/oidc/jwks`, stack.gatewayUrl)));
    const verified = await jwtVerify(tokens.id_token!, keys, { issuer: ISSUER, audience: clientId, algorithms: [alg] });
    expect(verified.protectedHeader.alg).toBe(alg);
    expect(verified.payload.sub).toBe(account.id);
  });

  it('sends the client access_denied when the user denies', async () => {
    const account = await signedInAccount(stack, 'deny');
    const config = await relyingParty(stack.gatewayUrl, 'web-app', { secret: WEB_SECRET });
    const browser = browserOf(account);
    const request = await authorizationRequest(config, {});
    const uid = OidcBrowser.interactionUid((await browser.navigate(request.url)).url);
    const denied = await account.client.post<{ redirect_to: string }>(`/v0/oidc/interactions/${uid}/deny`);
    expect(denied.status).toBe(200);
    const { url } = await browser.navigate(denied.body.redirect_to);
    expect(url.searchParams.get('error')).toBe('access_denied');
    expect((await account.client.get(`/v0/oidc/interactions/${uid}`)).body).toMatchObject({ code: 'oidc:interaction_not_found' });
  });

  it('answers the interaction routes with problem details', async () => {
    const anonymous = new ApiClient(stack.gatewayUrl);
    expect(await anonymous.get('/v0/oidc/interactions/nope')).toMatchObject({ status: 404, body: { code: 'oidc:interaction_not_found' } });
    expect(await anonymous.post('/v0/oidc/interactions/nope/confirm')).toMatchObject({ status: 401, body: { code: 'auth:unauthorized' } });
    expect(await anonymous.get('/v0/oidc/grants')).toMatchObject({ status: 401 });
    const account = await signedInAccount(stack, 'problems');
    expect(await account.client.delete('/v0/oidc/grants/web-app')).toMatchObject({ status: 404, body: { code: 'oidc:grant_not_found' } });
    expect(await account.client.post('/v0/oidc/device/verify', { user_code: 'BCDF-GHJK' })).toMatchObject({ status: 400, body: { code: 'oidc:user_code_invalid' } });
  });
});

describe('an authorization request belongs to the browser that started it (docs/security.md, "The OpenID Provider")', () => {
  const notFound = { status: 404, body: { code: 'oidc:interaction_not_found' } };

  it('gives an attacker who sends a signed-in victim the link of their sign-in request no code for the victim', async () => {
    const victim = await signedInAccount(stack, 'victim');
    const config = await relyingParty(stack.gatewayUrl, 'spa');
    // The attacker starts a sign-in at a first-party client in a browser without a Latchkey session.
    const attacker = OidcBrowser.signedOut(stack.gatewayUrl);
    const request = await authorizationRequest(config, {});
    const { url } = await attacker.navigate(request.url);
    const uid = OidcBrowser.interactionUid(url);

    // The victim opens {PUBLIC_APP_URL}/oidc/interaction/{uid}; the page reads the interaction and may confirm it.
    expect(await victim.client.get(`/v0/oidc/interactions/${uid}`)).toMatchObject(notFound);
    expect(await victim.client.post(`/v0/oidc/interactions/${uid}/confirm`)).toMatchObject(notFound);
    expect(await victim.client.post(`/v0/oidc/interactions/${uid}/deny`)).toMatchObject(notFound);

    // The attacker's browser resumes the request: it is asked to sign in again, and no code reaches the client.
    const resumed = await attacker.navigate(`${ISSUER}/oidc/auth/${uid}`);
    expect(resumed.url.origin + resumed.url.pathname).not.toBe(REDIRECT);
    expect(resumed.url.searchParams.get('code')).toBeNull();
    expect(victim.client.cookie('oidc_binding')).toBeUndefined();
  });

  it('sends the code to the account signed in where the request resumes, never to the one that allowed it', async () => {
    const account = await signedInAccount(stack, 'resumer');
    const config = await relyingParty(stack.gatewayUrl, 'web-app', { secret: WEB_SECRET });
    const browser = browserOf(account);
    const request = await authorizationRequest(config, {});
    const uid = OidcBrowser.interactionUid((await browser.navigate(request.url)).url);
    const confirmed = await account.client.post<{ redirect_to: string }>(`/v0/oidc/interactions/${uid}/confirm`);
    expect(confirmed.status).toBe(200);
    // Signed out between allowing and resuming: the consent stays, but nobody is signed in to the client.
    expect((await account.client.post('/v0/auth/logout')).status).toBe(204);
    const resumed = await browser.navigate(confirmed.body.redirect_to);
    expect(resumed.url.pathname).toMatch(/^\/oidc\/interaction\//);
    expect(resumed.url.searchParams.get('code')).toBeNull();
  });

  it('refuses a request begun in one account’s session to another account signed in later in the same browser', async () => {
    const first = await signedInAccount(stack, 'first');
    const second = await signedInAccount(stack, 'second');
    const config = await relyingParty(stack.gatewayUrl, 'web-app', { secret: WEB_SECRET });
    const request = await authorizationRequest(config, {});
    const uid = OidcBrowser.interactionUid((await browserOf(first).navigate(request.url)).url);
    // The same browser (its binding cookie) with the second account's session.
    const switched = { cookie: `oidc_binding=${first.client.cookie('oidc_binding')!}; session_id=${second.client.sessionCookie!}` };
    expect(await second.client.get(`/v0/oidc/interactions/${uid}`, switched)).toMatchObject(notFound);
    expect(await second.client.post(`/v0/oidc/interactions/${uid}/confirm`, undefined, switched)).toMatchObject(notFound);
    // The first account still can.
    expect((await first.client.get(`/v0/oidc/interactions/${uid}`)).status).toBe(200);
  });

  it('never shows a first-party client’s consent, not even after a sign-in inside the interaction or for prompt=consent', async () => {
    const account = await signedInAccount(stack, 'firstparty');
    const browser = OidcBrowser.signedOut(stack.gatewayUrl);
    const config = await relyingParty(stack.gatewayUrl, 'spa');
    const request = await authorizationRequest(config, { scope: 'openid email offline_access', prompt: 'consent' });
    const uid = OidcBrowser.interactionUid((await browser.navigate(request.url)).url);
    expect((await browser.api.get(`/v0/oidc/interactions/${uid}`)).body).toMatchObject({ prompt: 'login', consented: false });
    expect((await browser.api.post('/v0/auth/login', { email: account.email, password: PASSWORD })).status).toBe(200);

    const interaction = await browser.api.get<{ consented: boolean; resume_url?: string }>(`/v0/oidc/interactions/${uid}`);
    expect(interaction.body).toMatchObject({ prompt: 'consent', consented: true, resume_url: `${ISSUER}/oidc/auth/${uid}` });
    // The web app goes back to the request; the provider answers from the session, with no page.
    const { url } = await browser.navigate(interaction.body.resume_url!);
    expect(url.origin + url.pathname).toBe(REDIRECT);
    const tokens = await request.exchange(url);
    expect(tokens.claims()).toMatchObject({ sub: account.id, aud: 'spa', email: account.email });
    expect(tokens.refresh_token).toBeDefined();
  });

  it('releases no claim that the consent did not name: the claims parameter is not supported', async () => {
    const account = await signedInAccount(stack, 'claims');
    const config = await relyingParty(stack.gatewayUrl, 'web-app', { secret: WEB_SECRET });
    const request = await authorizationRequest(config, { scope: 'openid', claims: JSON.stringify({ id_token: { email: null }, userinfo: { email: null } }) });
    const browser = browserOf(account);
    const uid = OidcBrowser.interactionUid((await browser.navigate(request.url)).url);
    expect((await account.client.get(`/v0/oidc/interactions/${uid}`)).body).toMatchObject({ scopes: ['openid'] });
    const confirmed = await account.client.post<{ redirect_to: string }>(`/v0/oidc/interactions/${uid}/confirm`);
    const tokens = await request.exchange((await browser.navigate(confirmed.body.redirect_to)).url);
    expect(tokens.claims()).not.toHaveProperty('email');
    expect(await client.fetchUserInfo(config, tokens.access_token, account.id)).not.toHaveProperty('email');
    const discovery = (await (await fetch(onGateway(`${ISSUER}/.well-known/openid-configuration`, stack.gatewayUrl))).json()) as Record<string, unknown>;
    expect(discovery.claims_parameter_supported).toBe(false);
  });

  it('binds the browser with an HttpOnly cookie, signs the provider’s cookies, and sends the gateway’s security headers', async () => {
    const browser = OidcBrowser.signedOut(stack.gatewayUrl);
    const config = await relyingParty(stack.gatewayUrl, 'web-app', { secret: WEB_SECRET });
    const { url: authorizationUrl } = await authorizationRequest(config, {});
    const response = await browser.api.request('GET', `${authorizationUrl.pathname}${authorizationUrl.search}`, { redirect: 'manual' });
    expect(response.status).toBe(303);
    const cookies = response.headers.getSetCookie();
    expect(cookies.find((line) => line.startsWith('oidc_binding='))).toMatch(/HttpOnly/i);
    expect(cookies.find((line) => line.startsWith('oidc_binding='))).toMatch(/Path=\//);
    expect(cookies.some((line) => line.startsWith('oidc_resume.sig='))).toBe(true);
    for (const answer of [response, await browser.api.get('/.well-known/openid-configuration')]) {
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('x-frame-options')).toBe('DENY');
      expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
      expect(answer.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(answer.headers.get('x-request-id')).toBeTruthy();
    }
  });

  it('keeps no provider session for a browser that holds no authorization, and interactions for minutes only', async () => {
    const config = await relyingParty(stack.gatewayUrl, 'web-app', { secret: WEB_SECRET });
    const redis = new Redis(testRedisUrl());
    const prefix = stack.env.REDIS_KEY_PREFIX!;
    try {
      const before = new Set(await redis.keys(`${prefix}oidc:Session:*`));
      const uids: string[] = [];
      for (let round = 0; round < 5; round += 1) {
        const browser = OidcBrowser.signedOut(stack.gatewayUrl);
        const { url } = await browser.navigate((await authorizationRequest(config, {})).url);
        const uid = OidcBrowser.interactionUid(url);
        // Coming back without having signed in, and with a provider session cookie that names nothing.
        const again = await browser.navigate(`${ISSUER}/oidc/auth/${uid}`);
        const next = OidcBrowser.interactionUid(again.url);
        expect(next).not.toBe(uid);
        uids.push(next);
      }
      expect((await redis.keys(`${prefix}oidc:Session:*`)).filter((key) => !before.has(key))).toEqual([]);
      for (const uid of uids) {
        const ttl = await redis.ttl(`${prefix}oidc:Interaction:${uid}`);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(600);
      }
    } finally {
      redis.disconnect();
    }
  });

  it('refuses oversized authorization requests before they are kept', async () => {
    const browser = OidcBrowser.signedOut(stack.gatewayUrl);
    const config = await relyingParty(stack.gatewayUrl, 'web-app', { secret: WEB_SECRET });
    const { url, response } = await browser.navigate((await authorizationRequest(config, { state: 'x'.repeat(5_000) })).url);
    expect(url.pathname).toBe('/oidc/auth');
    expect(response).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(browser.api.cookie('oidc_binding')).toBeUndefined();
  });
});

describe('the OpenID Foundation Basic OP plan, module by module (docs/oidc.md, "Conformance")', () => {
  it('oidcc-codereuse: a code works once, and its second use revokes what the first got', async () => {
    const account = await signedInAccount(stack, 'codereuse');
    const config = await relyingParty(stack.gatewayUrl, 'web-app', { secret: WEB_SECRET });
    const request = await authorizationRequest(config, {});
    const browser = browserOf(account);
    let { url } = await browser.navigate(request.url);
    const confirmed = await account.client.post<{ redirect_to: string }>(`/v0/oidc/interactions/${OidcBrowser.interactionUid(url)}/confirm`);
    ({ url } = await browser.navigate(confirmed.body.redirect_to));
    const tokens = await request.exchange(url);
    await expect(request.exchange(url)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await client.tokenIntrospection(config, tokens.access_token)).active).toBe(false);
  });

  it('oidcc-ensure-registered-redirect-uri: an unregistered redirect URI gets an error page, never a redirect', async () => {
    const account = await signedInAccount(stack, 'redirect');
    const config = await relyingParty(stack.gatewayUrl, 'web-app', { secret: WEB_SECRET });
    const { url, response } = await browserOf(account).navigate((await authorizationRequest(config, { redirect_uri: 'http://evil.localhost/callback' })).url);
    expect(url.origin).toBe(ISSUER);
    expect(response!.status).toBe(400);
    expect(response!.text).toContain('redirect_uri did not match');
  });

  it('oidcc-userinfo-post-body and -post-header: userinfo answers the access token in a POST', async () => {
    const account = await signedInAccount(stack, 'userinfo');
    const config = await relyingParty(stack.gatewayUrl, 'spa');
    const { tokens } = await signInAt(config, browserOf(account));
    const userinfo = onGateway(`${ISSUER}/oidc/userinfo`, stack.gatewayUrl);
    const inBody = await fetch(userinfo, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `access_token=${tokens.access_token}` });
    expect(await inBody.json()).toMatchObject({ sub: account.id });
    const inHeader = await fetch(userinfo, { method: 'POST', headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(await inHeader.json()).toMatchObject({ sub: account.id });
  });

  it('oidcc-id-token-hint and oidcc-prompt-none-logged-in: prompt=none with the hint of the signed-in user answers a code', async () => {
    const account = await signedInAccount(stack, 'hint');
    const config = await relyingParty(stack.gatewayUrl, 'spa');
    const browser = browserOf(account);
    const { tokens } = await signInAt(config, browser);
    const silent = await authorizationRequest(config, { prompt: 'none', id_token_hint: tokens.id_token! });
    const { url } = await browser.navigate(silent.url);
    expect((await silent.exchange(url)).claims()!.sub).toBe(account.id);
  });
});

describe('single sign-on and its prompts', () => {
  it('answers prompt=none from the Latchkey session: login_required signed out, consent_required before consent, a code after', async () => {
    const config = await relyingParty(stack.gatewayUrl, 'web-app', { secret: WEB_SECRET });
    const signedOut = await OidcBrowser.signedOut(stack.gatewayUrl).navigate((await authorizationRequest(config, { prompt: 'none' })).url);
    expect(signedOut.url.searchParams.get('error')).toBe('login_required');

    const account = await signedInAccount(stack, 'none');
    const browser = browserOf(account);
    const before = await browser.navigate((await authorizationRequest(config, { prompt: 'none' })).url);
    expect(before.url.searchParams.get('error')).toBe('consent_required');

    await signInAt(config, browser);
    const silent = await authorizationRequest(config, { prompt: 'none' });
    const after = await browser.navigate(silent.url);
    expect((await silent.exchange(after.url)).claims()!.sub).toBe(account.id);
  });

  it('asks for a fresh sign-in on prompt=login and max_age: 403 until POST /v0/auth/reauthenticate, then a newer auth_time', async () => {
    const account = await signedInAccount(stack, 'login');
    const config = await relyingParty(stack.gatewayUrl, 'spa');
    const browser = browserOf(account);
    const first = await signInAt(config, browser);
    let lastAuthTime = first.tokens.claims()!.auth_time!;

    const cases: Record<string, string>[] = [{ prompt: 'login' }, { max_age: '1' }];
    for (const parameters of cases) {
      // A proof more than a second old, so that max_age=1 and a newer auth_time both show.
      const provenAt = lastAuthTime;
      await waitFor(async () => (Date.now() / 1000 - provenAt > 2 ? true : undefined), { description: 'the sign-in to age', intervalMs: 200 });
      const request = await authorizationRequest(config, parameters);
      const { url } = await browser.navigate(request.url);
      const uid = OidcBrowser.interactionUid(url);
      expect((await account.client.get(`/v0/oidc/interactions/${uid}`)).body).toMatchObject({ prompt: 'login', reauthentication_required: true });
      expect(await account.client.post(`/v0/oidc/interactions/${uid}/confirm`)).toMatchObject({ status: 403, body: { code: 'auth:reauthentication_required' } });
      expect((await account.client.post('/v0/auth/reauthenticate', { password: PASSWORD })).status).toBe(200);
      const confirmed = await account.client.post<{ redirect_to: string }>(`/v0/oidc/interactions/${uid}/confirm`);
      expect(confirmed.status).toBe(200);
      const tokens = await request.exchange((await browser.navigate(confirmed.body.redirect_to)).url);
      expect(tokens.claims()!.auth_time).toBeGreaterThan(lastAuthTime);
      lastAuthTime = tokens.claims()!.auth_time!;
    }
  });

  it('tells a client that the user signed in with TOTP (amr, acr), and holds a multi-factor client back from a one-factor session', async () => {
    // A session proven with a password alone does not sign in to a client that requires multi-factor.
    const mfaConfig = await relyingParty(stack.gatewayUrl, 'mfa-app');
    const oneFactor = await signedInAccount(stack, 'onefactor');
    const refused = await browserOf(oneFactor).navigate((await authorizationRequest(mfaConfig, { prompt: 'none' })).url);
    expect(refused.url.searchParams.get('error')).toBe('login_required');
    // With a page, the interaction says why, so that an account without a second factor is told to add one.
    const asked = await browserOf(oneFactor).navigate((await authorizationRequest(mfaConfig, {})).url);
    const interaction = await oneFactor.client.get(`/v0/oidc/interactions/${OidcBrowser.interactionUid(asked.url)}`);
    expect(interaction.body).toMatchObject({ prompt: 'login', reauthentication_required: true, multi_factor_required: true });
    expect((await oneFactor.client.get('/v0/users/me')).body).toMatchObject({ totp_enabled: false, passkeys_count: 0 });

    const account = await signedInAccount(stack, 'mfa');
    const setup = await account.client.post<{ secret: string; setup_token: string }>('/v0/auth/totp/setup');
    expect(setup.status).toBe(200);
    expect((await account.client.post('/v0/auth/totp/enable', { setup_token: setup.body.setup_token, code: totpCode(setup.body.secret) })).status).toBe(200);

    // A new sign-in with the code.
    const fresh = new ApiClient(stack.gatewayUrl);
    const challenge = await fresh.post<{ temp_token: string }>('/v0/auth/login', { email: account.email, password: PASSWORD });
    const verified = await fresh.post('/v0/auth/totp/verify', { temp_token: challenge.body.temp_token, code: totpCode(setup.body.secret, 1) });
    expect(verified.status).toBe(200);
    const { tokens } = await signInAt(mfaConfig, new OidcBrowser(fresh, stack.gatewayUrl));
    expect(tokens.claims()).toMatchObject({ sub: account.id, acr: 'urn:latchkey:acr:mfa', amr: ['pwd', 'otp', 'mfa'] });
  });
});

describe('tokens', () => {
  it('rotates refresh tokens, and a reused one revokes the grant and mails the owner', async () => {
    const account = await signedInAccount(stack, 'refresh');
    const config = await relyingParty(stack.gatewayUrl, 'web-app', { secret: WEB_SECRET });
    const { tokens } = await signInAt(config, browserOf(account), { scope: 'openid email offline_access', prompt: 'consent' });
    const first = tokens.refresh_token!;
    expect(first).toBeDefined();

    const rotated = await client.refreshTokenGrant(config, first);
    expect(rotated.refresh_token).toBeDefined();
    expect(rotated.refresh_token).not.toBe(first);
    expect(rotated.claims()!.sub).toBe(account.id);
    // The access tokens were saved with the refresh token each came with (docs/oidc.md, "Tokens").
    expect((await client.tokenIntrospection(config, tokens.access_token)).active).toBe(true);
    expect((await client.tokenIntrospection(config, rotated.access_token)).active).toBe(true);

    await expect(client.refreshTokenGrant(config, first)).rejects.toMatchObject({ error: 'invalid_grant' });
    // The whole grant went with it: the newest token and its access token too.
    await expect(client.refreshTokenGrant(config, rotated.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    const introspected = await client.tokenIntrospection(config, rotated.access_token);
    expect(introspected.active).toBe(false);
    await noticeMail(stack, account.email, /already used was presented again/);
  });

  it('introspects and revokes a client’s own tokens', async () => {
    const account = await signedInAccount(stack, 'introspect');
    const config = await relyingParty(stack.gatewayUrl, 'web-app', { secret: WEB_SECRET });
    const { tokens } = await signInAt(config, browserOf(account));
    const active = await client.tokenIntrospection(config, tokens.access_token);
    expect(active).toMatchObject({ active: true, sub: account.id, client_id: 'web-app' });
    // Another client learns nothing of it.
    const other = await relyingParty(stack.gatewayUrl, 'jwt-app', { privateKey: jwtClientKey.privateKey as ClientPrivateKey });
    expect((await client.tokenIntrospection(other, tokens.access_token)).active).toBe(false);

    await client.tokenRevocation(config, tokens.access_token);
    expect((await client.tokenIntrospection(config, tokens.access_token)).active).toBe(false);
    await expect(client.fetchUserInfo(config, tokens.access_token, account.id)).rejects.toThrow();
  });

  it('introspects and revokes a refresh token presented without its type, as the one token it is', async () => {
    const account = await signedInAccount(stack, 'rtintro');
    const config = await relyingParty(stack.gatewayUrl, 'web-app', { secret: WEB_SECRET });
    const { tokens } = await signInAt(config, browserOf(account), { scope: 'openid offline_access', prompt: 'consent' });
    const refreshToken = tokens.refresh_token!;
    // The provider names the type of an access token only.
    const asRefresh = await client.tokenIntrospection(config, refreshToken);
    expect(asRefresh).toMatchObject({ active: true, sub: account.id, client_id: 'web-app' });
    expect(asRefresh.token_type).toBeUndefined();
    expect(await client.tokenIntrospection(config, tokens.access_token)).toMatchObject({ active: true, token_type: 'Bearer' });

    // Revoking the refresh token ends the grant, and the access token with it.
    await client.tokenRevocation(config, refreshToken);
    expect((await client.tokenIntrospection(config, refreshToken)).active).toBe(false);
    expect((await client.tokenIntrospection(config, tokens.access_token)).active).toBe(false);
    await expect(client.refreshTokenGrant(config, refreshToken)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('withdraws an application’s access from the account page: its refresh token dies at once', async () => {
    const account = await signedInAccount(stack, 'revoke');
    const config = await relyingParty(stack.gatewayUrl, 'web-app', { secret: WEB_SECRET });
    const { tokens } = await signInAt(config, browserOf(account), { scope: 'openid offline_access', prompt: 'consent' });
    expect((await account.client.delete('/v0/oidc/grants/web-app')).status).toBe(204);
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await account.client.get<{ items: unknown[] }>('/v0/oidc/grants')).body.items).toEqual([]);
    // And the next sign-in asks again.
    const again = await browserOf(account).navigate((await authorizationRequest(config, {})).url);
    expect(again.url.pathname).toMatch(/^\/oidc\/interaction\//);
  });

  it('revokes refresh tokens with a password reset', async () => {
    const account = await signedInAccount(stack, 'reset');
    const config = await relyingParty(stack.gatewayUrl, 'web-app', { secret: WEB_SECRET });
    const { tokens } = await signInAt(config, browserOf(account), { scope: 'openid offline_access', prompt: 'consent' });
    expect((await new ApiClient(stack.gatewayUrl).post('/v0/auth/forgot-password', { email: account.email })).status).toBe(202);
    const token = await mailedToken(stack, account.email, 'reset-password');
    expect((await new ApiClient(stack.gatewayUrl).post('/v0/auth/reset-password', { token, new_password: `${PASSWORD} anew` })).status).toBe(204);
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('revokes refresh and access tokens with a password change, and with an email change once confirmed; the consent stays', async () => {
    const account = await signedInAccount(stack, 'changes');
    const config = await relyingParty(stack.gatewayUrl, 'web-app', { secret: WEB_SECRET });
    const signIn = async () => (await signInAt(config, browserOf(account), { scope: 'openid email offline_access', prompt: 'consent' })).tokens;
    const allowed = async () => (await account.client.get<{ items: { client_id: string }[] }>('/v0/oidc/grants')).body.items.map((grant) => grant.client_id);

    const beforePassword = await signIn();
    expect((await account.client.post('/v0/auth/change-password', { current_password: PASSWORD, new_password: `${PASSWORD} changed` })).status).toBe(204);
    await expect(client.refreshTokenGrant(config, beforePassword.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await client.tokenIntrospection(config, beforePassword.access_token)).active).toBe(false);
    expect(await allowed()).toEqual(['web-app']);

    const beforeEmail = await signIn();
    const newEmail = `moved.${account.handle}@example.org`;
    expect((await account.client.post('/v0/auth/change-email', { current_password: `${PASSWORD} changed`, new_email: newEmail })).status).toBe(202);
    const token = await mailedToken(stack, newEmail, 'confirm-email-change');
    // Asking is not changing: the tokens still work until the new address confirms.
    const refreshed = await client.refreshTokenGrant(config, beforeEmail.refresh_token!);
    expect((await account.client.post('/v0/auth/confirm-email-change', { token })).status).toBe(200);
    await expect(client.refreshTokenGrant(config, refreshed.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await client.tokenIntrospection(config, refreshed.access_token)).active).toBe(false);
    expect(await allowed()).toEqual(['web-app']);
  });
});

describe('device flow', () => {
  it('lets a device sign in with the code the user enters at /device', async () => {
    const account = await signedInAccount(stack, 'tv');
    const config = await relyingParty(stack.gatewayUrl, 'tv');
    const device = await client.initiateDeviceAuthorization(config, { scope: 'openid email' });
    expect(device.verification_uri).toBe(`${ISSUER}/device`);

    const verified = await account.client.post<{ uid: string }>('/v0/oidc/device/verify', { user_code: device.user_code.toLowerCase() });
    expect(verified.status).toBe(200);
    const interaction = await account.client.get(`/v0/oidc/interactions/${verified.body.uid}`);
    expect(interaction.body).toMatchObject({ prompt: 'consent', client: { client_id: 'tv', client_name: 'TV' }, scopes: ['openid', 'email'] });
    const confirmed = await account.client.post<{ redirect_to: string }>(`/v0/oidc/interactions/${verified.body.uid}/confirm`);
    expect(confirmed.body.redirect_to).toBe(`${ISSUER}/device?done=1`);

    const tokens = await client.pollDeviceAuthorizationGrant(config, { ...device, interval: 1 }).catch((error: unknown) => {
      throw new Error(`device grant refused: ${JSON.stringify((error as { cause?: unknown }).cause)}`);
    });
    expect(tokens.claims()).toMatchObject({ sub: account.id, aud: 'tv', email: account.email });
    // A code works once.
    expect(await account.client.post('/v0/oidc/device/verify', { user_code: device.user_code })).toMatchObject({ status: 400, body: { code: 'oidc:user_code_invalid' } });
  });

  it('answers the device access_denied when the user refuses it, and the code is spent', async () => {
    const account = await signedInAccount(stack, 'tv_deny');
    const config = await relyingParty(stack.gatewayUrl, 'tv');
    const device = await client.initiateDeviceAuthorization(config, { scope: 'openid' });
    const verified = await account.client.post<{ uid: string }>('/v0/oidc/device/verify', { user_code: device.user_code });
    expect(verified.status).toBe(200);
    const denied = await account.client.post<{ redirect_to: string }>(`/v0/oidc/interactions/${verified.body.uid}/deny`);
    expect(denied.body.redirect_to).toBe(`${ISSUER}/device?denied=1`);

    await expect(client.pollDeviceAuthorizationGrant(config, { ...device, interval: 1 })).rejects.toMatchObject({ error: 'access_denied' });
    expect(await account.client.post('/v0/oidc/device/verify', { user_code: device.user_code })).toMatchObject({ status: 400, body: { code: 'oidc:user_code_invalid' } });
  });
});

describe('a dump of identity’s database (docs/security.md, "What is stored hashed, sealed or plain")', () => {
  /** Every row identity keeps of the provider's state, each as one text of all its columns, as a dump shows them. */
  async function dumpedRows(): Promise<{ kind: string; id: string; user_code: string | null; client_id: string; user_id: string | null; row: string }[]> {
    const db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
    try {
      const { rows } = await db.query<{ kind: string; id: string; user_code: string | null; client_id: string; user_id: string | null; row: string }>(
        'SELECT kind, id, user_code, client_id, user_id, row_to_json(a)::text AS row FROM identity.oidc_artifacts a ORDER BY created_at DESC',
      );
      return rows;
    } finally {
      await db.end();
    }
  }

  it('holds no code, token or user code the provider issued, and what it holds is refused as one', async () => {
    const account = await signedInAccount(stack, 'dump');
    const config = await relyingParty(stack.gatewayUrl, 'web-app', { secret: WEB_SECRET });
    const { tokens, callback } = await signInAt(config, browserOf(account), { scope: 'openid offline_access', prompt: 'consent' });
    const rotated = await client.refreshTokenGrant(config, tokens.refresh_token!);
    const tv = await relyingParty(stack.gatewayUrl, 'tv');
    const device = await client.initiateDeviceAuthorization(tv, { scope: 'openid' });
    const waiting = (await dumpedRows()).find((row) => row.kind === 'DeviceCode' && row.user_id === null)!;
    const verified = await account.client.post<{ uid: string }>('/v0/oidc/device/verify', { user_code: device.user_code });
    expect((await account.client.post(`/v0/oidc/interactions/${verified.body.uid}/confirm`)).status).toBe(200);
    const deviceTokens = await client.pollDeviceAuthorizationGrant(tv, { ...device, interval: 1 });

    const issued = {
      code: callback.searchParams.get('code')!,
      accessToken: tokens.access_token,
      refreshToken: tokens.refresh_token!,
      rotatedAccessToken: rotated.access_token,
      rotatedRefreshToken: rotated.refresh_token!,
      deviceCode: device.device_code,
      userCode: device.user_code.replace(/\W/g, ''),
      deviceAccessToken: deviceTokens.access_token,
    };
    const rows = await dumpedRows();
    const dump = rows.map((row) => row.row).join('\n');
    for (const [name, value] of Object.entries(issued)) expect({ name, found: dump.includes(value) }).toEqual({ name, found: false });

    // What the dump holds, presented where the values are taken, works nowhere.
    const kept = (kind: string) => rows.find((row) => row.kind === kind && row.client_id === 'web-app' && row.user_id === account.id)!.id;
    await expect(client.refreshTokenGrant(config, kept('RefreshToken'))).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await client.tokenIntrospection(config, kept('AccessToken'))).active).toBe(false);
    await expect(client.fetchUserInfo(config, kept('AccessToken'), account.id)).rejects.toThrow();
    await expect(client.pollDeviceAuthorizationGrant(tv, { ...device, device_code: waiting.id, interval: 1 })).rejects.toMatchObject({ error: 'invalid_grant' });
    // Too long to be a user code at all (identity's own test presents it to the lookup itself).
    expect((await account.client.post('/v0/oidc/device/verify', { user_code: waiting.user_code })).status).toBe(400);
    // And presenting them changed nothing: the application's own tokens still work.
    expect((await client.fetchUserInfo(config, rotated.access_token, account.id)).sub).toBe(account.id);
    expect((await client.refreshTokenGrant(config, rotated.refresh_token!)).claims()!.sub).toBe(account.id);
  });
});

describe('device flow, as a phisher would use it (RFC 8628, section 5.4)', () => {
  it('names the device as a device, never allows it for the user, answers only the browser that entered the code, and tells the device of a denial', async () => {
    const victim = await signedInAccount(stack, 'phished');
    const config = await relyingParty(stack.gatewayUrl, 'tv');
    // The phisher starts the flow on their own device and sends the victim the code, or the link that carries it.
    const device = await client.initiateDeviceAuthorization(config, { scope: 'openid email' });
    expect(device.verification_uri_complete).toBe(`${ISSUER}/device?user_code=${encodeURIComponent(device.user_code)}`);
    const verified = await victim.client.post<{ uid: string }>('/v0/oidc/device/verify', { user_code: device.user_code });
    expect(verified.status).toBe(200);
    const interaction = await victim.client.get(`/v0/oidc/interactions/${verified.body.uid}`);
    expect(interaction.body).toMatchObject({ prompt: 'consent', device: true, consented: false });
    expect(interaction.body).not.toHaveProperty('resume_url');
    // The phisher cannot allow it for the victim from another browser.
    const phisher = await signedInAccount(stack, 'phisher');
    expect(await phisher.client.post(`/v0/oidc/interactions/${verified.body.uid}/confirm`)).toMatchObject({ status: 404 });

    expect((await victim.client.post(`/v0/oidc/interactions/${verified.body.uid}/deny`)).body).toMatchObject({ redirect_to: `${ISSUER}/device?denied=1` });
    await expect(client.pollDeviceAuthorizationGrant(config, { ...device, interval: 1 })).rejects.toMatchObject({ error: 'access_denied' });
  });

  it('holds a device to its client’s multi-factor requirement', async () => {
    const account = await signedInAccount(stack, 'mfatv');
    const config = await relyingParty(stack.gatewayUrl, 'mfa-tv');
    const device = await client.initiateDeviceAuthorization(config, { scope: 'openid' });
    const { body } = await account.client.post<{ uid: string }>('/v0/oidc/device/verify', { user_code: device.user_code });
    expect((await account.client.get(`/v0/oidc/interactions/${body.uid}`)).body).toMatchObject({
      device: true,
      reauthentication_required: true,
      multi_factor_required: true,
    });
    expect(await account.client.post(`/v0/oidc/interactions/${body.uid}/confirm`)).toMatchObject({ status: 403, body: { code: 'auth:reauthentication_required' } });
  });

  it('takes no more codes from an account after a few wrong ones', async () => {
    const account = await signedInAccount(stack, 'guesser');
    const device = await client.initiateDeviceAuthorization(await relyingParty(stack.gatewayUrl, 'tv'), { scope: 'openid' });
    for (let guess = 0; guess < 5; guess += 1) {
      expect(await account.client.post('/v0/oidc/device/verify', { user_code: 'BCDF-GHJK' })).toMatchObject({ status: 400, body: { code: 'oidc:user_code_invalid' } });
    }
    const locked = await account.client.post('/v0/oidc/device/verify', { user_code: device.user_code });
    expect(locked).toMatchObject({ status: 429, body: { code: 'rate_limit:exceeded' } });
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('logout', () => {
  it('tells every client of a session within 5 s when a password change ends it, though another client is down', async () => {
    const account = await signedInAccount(stack, 'backchannel');
    const web = await signInAt(await relyingParty(stack.gatewayUrl, 'web-app', { secret: WEB_SECRET }), browserOf(account));
    await signInAt(await relyingParty(stack.gatewayUrl, 'down-app'), browserOf(account));
    const sid = web.tokens.claims()!.sid;
    const before = backchannel.received.length;
    const changedAt = Date.now();
    expect((await account.client.post('/v0/auth/change-password', { current_password: PASSWORD, new_password: `${PASSWORD} changed` })).status).toBe(204);

    const received = await waitFor(() => backchannel.received.slice(before).find((logout) => logout.path === '/web-app'), {
      description: 'the back-channel logout of web-app',
    });
    expect(received.receivedAt - changedAt).toBeLessThan(5_000);
    // Signed like web-app's ID tokens: RS256, the algorithm of a client that names none.
    const payload = await verifyLogoutToken(stack.gatewayUrl, received.token, 'web-app', 'RS256');
    expect(payload).toMatchObject({ iss: ISSUER, sub: account.id, sid });
    // The client that is down was tried, and is tried again, on its own.
    await waitFor(() => (backchannel.failedAttempts() >= 2 ? true : undefined), { description: 'retries of the client that is down' });
  });

  it('tells the clients when the user signs out, and when another session is ended from the session list', async () => {
    const account = await signedInAccount(stack, 'signout');
    const other = await signedInAccount(stack, 'signout2');
    const config = await relyingParty(stack.gatewayUrl, 'web-app', { secret: WEB_SECRET });
    const first = await signInAt(config, browserOf(account));
    const before = backchannel.received.length;
    expect((await account.client.post('/v0/auth/logout')).status).toBe(204);
    const received = await waitFor(() => backchannel.received.slice(before).find((logout) => logout.path === '/web-app'), { description: 'the logout’s back-channel logout' });
    expect(await verifyLogoutToken(stack.gatewayUrl, received.token, 'web-app')).toMatchObject({ sub: account.id, sid: first.tokens.claims()!.sid });
    // The access token the session got without offline_access ended with it.
    await waitFor(async () => ((await client.tokenIntrospection(config, first.tokens.access_token)).active ? undefined : true), {
      description: 'the session’s access token to end',
    });

    // A second browser of the same user signs in to the client; the first browser ends it from its session list.
    const second = new ApiClient(stack.gatewayUrl);
    expect((await second.post('/v0/auth/login', { email: other.email, password: PASSWORD })).status).toBe(200);
    const secondSignIn = await signInAt(config, new OidcBrowser(second, stack.gatewayUrl));
    const sid = secondSignIn.tokens.claims()!.sid as string;
    const later = backchannel.received.length;
    expect((await other.client.delete(`/v0/auth/sessions/${sid}`)).status).toBe(204);
    const ended = await waitFor(() => backchannel.received.slice(later).find((logout) => logout.path === '/web-app'), { description: 'the ended session’s back-channel logout' });
    expect(await verifyLogoutToken(stack.gatewayUrl, ended.token, 'web-app')).toMatchObject({ sub: other.id, sid });
  });

  it('ends the Latchkey session on RP-initiated logout with an id_token_hint, and tells the session’s clients', async () => {
    const account = await signedInAccount(stack, 'rplogout');
    const config = await relyingParty(stack.gatewayUrl, 'web-app', { secret: WEB_SECRET });
    const browser = browserOf(account);
    const { tokens } = await signInAt(config, browser);
    const before = backchannel.received.length;
    const endUrl = client.buildEndSessionUrl(config, {
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: 'http://rp.localhost/signed-out',
      state: 'bye',
    });
    const page = await browser.navigate(endUrl);
    const { url } = await browser.submitForm(String(page.response!.text));
    expect(url.origin + url.pathname).toBe('http://rp.localhost/signed-out');
    expect(url.searchParams.get('state')).toBe('bye');
    expect((await account.client.get('/v0/users/me')).status).toBe(401);

    const received = await waitFor(() => backchannel.received.slice(before).find((logout) => logout.path === '/web-app'), {
      description: 'the back-channel logout after RP-initiated logout',
    });
    expect(await verifyLogoutToken(stack.gatewayUrl, received.token, 'web-app')).toMatchObject({ sub: account.id, sid: tokens.claims()!.sid });
  });
});

describe('ID tokens and service tokens', () => {
  it('never takes one for the other: an ID token fails a service token check by its type, and a service token is no id_token_hint', async () => {
    const account = await signedInAccount(stack, 'tokentypes');
    const config = await relyingParty(stack.gatewayUrl, 'web-app', { secret: WEB_SECRET });
    const browser = browserOf(account);
    const idToken = (await signInAt(await relyingParty(stack.gatewayUrl, 'eddsa-spa'), browser)).tokens.id_token!;
    const serviceToken = (await account.client.post('/v0/auth/token')).body.token as string;
    const keys = createRemoteJWKSet(new URL('/.well-known/jwks.json', stack.gatewayUrl));
    const checks = { issuer: stack.env.PUBLIC_APP_URL, algorithms: ['EdDSA'] };
    // The same keys and the same issuer sign both here: a verifier of service tokens told the client's id as its audience would take the ID token.
    await expect(jwtVerify(idToken, keys, { ...checks, audience: 'eddsa-spa' })).resolves.toMatchObject({ payload: { sub: account.id } });
    // docs/integration.md, "Service tokens": the type check refuses it, and the service token passes.
    const asServiceToken = (token: string, audience: string) => jwtVerify(token, keys, { ...checks, audience, typ: 'latchkey-service+jwt' });
    await expect(asServiceToken(idToken, 'eddsa-spa')).rejects.toMatchObject({ code: 'ERR_JWT_CLAIM_VALIDATION_FAILED', claim: 'typ' });
    await expect(asServiceToken(serviceToken, 'latchkey')).resolves.toMatchObject({ payload: { sub: account.id, token_use: 'service' } });
    expect(decodeJwt(idToken)).not.toHaveProperty('token_use');

    // Its audience is no client's, so the provider finds no client it was issued to.
    const endUrl = client.buildEndSessionUrl(config, { id_token_hint: serviceToken, post_logout_redirect_uri: 'http://rp.localhost/signed-out' });
    const { url, response } = await browser.navigate(endUrl);
    expect(url.origin).toBe(ISSUER);
    expect(response!.status).toBe(400);
    expect(response!.text).toContain('id_token_hint');
    expect((await account.client.get('/v0/users/me')).status).toBe(200);
  });
});

describe('clients through admin.v1', () => {
  /** latchkey-admin as an operator runs it, with --json. */
  async function latchkeyAdmin(...args: string[]): Promise<Record<string, string>[]> {
    const cli = path.resolve(__dirname, '../../services/identity/dist/admin-cli.js');
    const environment = { PATH: process.env.PATH, ADMIN_GRPC_ADDRESS: `127.0.0.1:${stack.processes.get('identity')!.ports.ADMIN_GRPC_PORT}` };
    const { stdout } = await promisify(execFile)(process.execPath, [cli, '--json', '--operator', 'oidc-e2e', ...args], { env: environment });
    return stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, string>);
  }

  function entryFile(entry: Record<string, unknown>): string {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'latchkey-client-')), 'entry.json');
    writeFileSync(file, JSON.stringify(entry));
    return file;
  }

  // Nine runs of the latchkey-admin CLI, each a Node process of its own: seconds apiece on a busy two-core machine.
  it('registers a client with a secret shown once, rotates the secret, deletes the client, and audits each change', async () => {
    const account = await signedInAccount(stack, 'registered');
    const [created] = await latchkeyAdmin('clients', 'create', entryFile({ client_id: 'registered-app', client_name: 'Registered App', redirect_uris: [REDIRECT], first_party: true }));
    expect(created).toMatchObject({ client_id: 'registered-app', name: 'Registered App', auth: 'client_secret_basic' });
    const secret = created!.client_secret!;
    expect(secret.length).toBeGreaterThanOrEqual(43);
    expect(await latchkeyAdmin('clients', 'list')).toEqual([expect.not.objectContaining({ client_secret: expect.anything() })]);

    const { tokens } = await signInAt(await relyingParty(stack.gatewayUrl, 'registered-app', { secret }), browserOf(account));
    expect(tokens.claims()).toMatchObject({ sub: account.id, aud: 'registered-app' });

    const [rotated] = await latchkeyAdmin('clients', 'rotate-secret', 'registered-app');
    const newSecret = rotated!.client_secret!;
    expect(newSecret).not.toBe(secret);
    // The gateway remembers a registered client for 5 seconds.
    await waitFor(
      async () => {
        const old = await relyingParty(stack.gatewayUrl, 'registered-app', { secret });
        return (await client.tokenIntrospection(old, tokens.access_token).then(() => false, () => true)) ? true : undefined;
      },
      { description: 'the old secret to be refused', timeoutMs: 15_000, intervalMs: 500 },
    );
    const current = await relyingParty(stack.gatewayUrl, 'registered-app', { secret: newSecret });
    expect((await client.tokenIntrospection(current, tokens.access_token)).active).toBe(true);

    await latchkeyAdmin('clients', 'delete', 'registered-app');
    expect(await latchkeyAdmin('clients', 'list')).toEqual([]);
    const audit = await latchkeyAdmin('audit');
    expect(audit.filter((entry) => entry.client === 'registered-app').map((entry) => entry.action)).toEqual(['delete_client', 'rotate_client_secret', 'create_client']);
  }, 90_000);

  it('refuses an entry that breaks the rules, and a secret in it', async () => {
    await expect(latchkeyAdmin('clients', 'create', entryFile({ client_id: 'bad', redirect_uris: ['not a url'] }))).rejects.toThrow(/redirect_uris/);
    await expect(latchkeyAdmin('clients', 'create', entryFile({ client_id: 'bad', redirect_uris: [REDIRECT], client_secret: 'chosen-by-me-1234567' }))).rejects.toThrow(/client_secret/);
    // The service tokens' audience (AUTH_JWT_AUDIENCE, `latchkey` here) is no client's id.
    await expect(latchkeyAdmin('clients', 'create', entryFile({ client_id: 'latchkey', redirect_uris: [REDIRECT] }))).rejects.toThrow(
      /client_id.*AUTH_JWT_AUDIENCE/,
    );
    expect((await latchkeyAdmin('clients', 'list')).map((listed) => listed.client_id)).not.toContain('latchkey');
  });
});
