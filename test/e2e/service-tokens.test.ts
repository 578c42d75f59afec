import { generateKeyPairSync } from 'node:crypto';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import { testSigningKeys } from '@latchkey/test-kit';
import { loadGatewayConfig } from '../../gateway/src/config';
import { ApiClient } from '../support/api-client';
import { signedInAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';

/**
 * docs/api.md, "Service tokens", as a service beside Latchkey uses them: it
 * verifies a token against the published keys, without calling Latchkey.
 * The gateway runs after a rotation: a new key signs, the old one is still
 * published. The OpenID Provider's RSA key comes first and is published
 * too, but never signs a service token.
 */
const newKey = () => generateKeyPairSync('ed25519').privateKey;
const current = newKey();
const retired = newKey();
const jwk = (kid: string, key: ReturnType<typeof newKey>) => ({ kid, ...key.export({ format: 'jwk' }) });
let stack: E2eStack;

beforeAll(async () => {
  stack = await startE2eStack('tokens', {
    AUTH_JWT_SIGNING_KEYS: JSON.stringify([
      jwk('rs256', generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey),
      jwk('2026-11', current),
      jwk('2026-10', retired),
    ]),
    AUTH_JWT_AUDIENCE: 'billing',
    AUTH_JWT_TTL_SECONDS: '120',
  });
}, 60_000);

afterAll(async () => {
  await stack?.destroy();
});

/** The downstream service, as docs/integration.md verifies: it knows where the keys are, the issuer and its audience, and checks the type. */
function downstream() {
  const keys = createRemoteJWKSet(new URL('/.well-known/jwks.json', stack.gatewayUrl));
  return (token: string) =>
    jwtVerify(token, keys, { issuer: stack.env.PUBLIC_APP_URL, audience: 'billing', algorithms: ['EdDSA'], typ: 'latchkey-service+jwt' });
}

describe('service tokens', () => {
  it('hands the signed-in session a short-lived token that another service verifies with the published keys', async () => {
    const account = await signedInAccount(stack, 'tokens');
    const before = Math.floor(Date.now() / 1000);
    const answer = await account.client.post('/v0/auth/token');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const token = answer.body.token as string;
    // Typed apart from the OpenID Provider's ID tokens, which the same keys sign (RFC 8725, 3.11).
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'EdDSA', kid: '2026-11', typ: 'latchkey-service+jwt' });

    const { payload } = await downstream()(token);
    const me = await account.client.get('/v0/users/me');
    const [session] = (await account.client.get('/v0/auth/sessions')).body.items as { id: string }[];
    expect(payload).toEqual({
      token_use: 'service',
      sub: me.body.id,
      sid: session!.id,
      amr: ['pwd'],
      auth_time: expect.any(Number),
      iat: expect.any(Number),
      exp: expect.any(Number),
      iss: stack.env.PUBLIC_APP_URL,
      aud: 'billing',
    });
    expect(payload.exp! - payload.iat!).toBe(120);
    expect(payload.iat!).toBeGreaterThanOrEqual(before);
    expect(payload.auth_time as number).toBeLessThanOrEqual(payload.iat!);
    expect(Date.parse(answer.body.expires_at as string)).toBe(payload.exp! * 1000);
  });

  it('publishes every configured key, so tokens of the retired key verify until they expire, and only public parts', async () => {
    const jwks = await new ApiClient(stack.gatewayUrl).get('/.well-known/jwks.json');
    expect(jwks.headers.get('cache-control')).toBe('public, max-age=300');
    const keys = jwks.body.keys as Record<string, unknown>[];
    expect(keys.map((key) => key.kid)).toEqual(['rs256', '2026-11', '2026-10']);
    expect(Object.keys(keys[0]!).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    expect(keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256' });
    for (const key of keys.slice(1)) expect(Object.keys(key).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x']);

    const now = Math.floor(Date.now() / 1000);
    const signedBefore = await new SignJWT({ sid: 'earlier', token_use: 'service' })
      .setProtectedHeader({ alg: 'EdDSA', kid: '2026-10', typ: 'latchkey-service+jwt' })
      .setSubject('someone')
      .setIssuer(stack.env.PUBLIC_APP_URL!)
      .setAudience('billing')
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(retired);
    await expect(downstream()(signedBefore)).resolves.toMatchObject({ payload: { sub: 'someone' } });
  });

  it('refuses what a service must not trust: another audience, a forged signature, and no session', async () => {
    const account = await signedInAccount(stack, 'forger');
    const token = (await account.client.post('/v0/auth/token')).body.token as string;
    const keys = createRemoteJWKSet(new URL('/.well-known/jwks.json', stack.gatewayUrl));
    await expect(jwtVerify(token, keys, { audience: 'someone-else' })).rejects.toMatchObject({ code: 'ERR_JWT_CLAIM_VALIDATION_FAILED' });
    const [header, payload] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: 'admin' })).toString('base64url')}.${token.split('.')[2]}`;
    await expect(downstream()(forged)).rejects.toMatchObject({ code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });

    const anonymous = await new ApiClient(stack.gatewayUrl).post('/v0/auth/token');
    expect(anonymous.body).toMatchObject({ status: 401, code: 'auth:unauthorized' });
  });

  it('keeps its audience from every OpenID client: the gateway refuses to start with a client of that id', () => {
    const base = { PUBLIC_APP_URL: 'http://app.example.test', REDIS_URL: 'redis://127.0.0.1:6379', AUTH_JWT_SIGNING_KEYS: testSigningKeys() };
    const clientNamed = (clientId: string) => JSON.stringify([{ client_id: clientId, token_endpoint_auth_method: 'none', redirect_uris: ['https://billing.example.test/callback'] }]);
    expect(() => loadGatewayConfig({ ...base, AUTH_JWT_AUDIENCE: 'billing', OIDC_CLIENTS: clientNamed('billing') })).toThrow(
      /OIDC_CLIENTS: client_id cannot be "billing": it is AUTH_JWT_AUDIENCE/,
    );
    // The default audience is reserved too.
    expect(() => loadGatewayConfig({ ...base, OIDC_CLIENTS: clientNamed('latchkey') })).toThrow(/AUTH_JWT_AUDIENCE/);
    expect(loadGatewayConfig({ ...base, AUTH_JWT_AUDIENCE: 'billing', OIDC_CLIENTS: clientNamed('billing-web') }).OIDC_CLIENTS).toHaveLength(1);
  });
});
