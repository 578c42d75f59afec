import { generateKeyPairSync } from 'node:crypto';
import { ConfigError } from '@latchkey/config';
import { loadGatewayConfig } from './config';

const jwk = (kid: string, key: ReturnType<typeof generateKeyPairSync>['privateKey']) => ({ kid, ...key.export({ format: 'jwk' }) });
const ed25519 = jwk('ed', generateKeyPairSync('ed25519').privateKey);
const rsa = jwk('rsa', generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
const p256 = jwk('ec', generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);

const base = { PUBLIC_APP_URL: 'https://accounts.example.com', REDIS_URL: 'redis://127.0.0.1:6379', OIDC_ENABLED: 'true' };
const client = (id: string, alg?: string) => ({ client_id: id, token_endpoint_auth_method: 'none', redirect_uris: [`https://${id}.example.com/callback`], ...(alg ? { id_token_signed_response_alg: alg } : {}) });

/** The problems loadGatewayConfig names, as the process prints them at start. */
function problemsOf(environment: Record<string, string>): readonly string[] {
  try {
    loadGatewayConfig(environment);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('the OpenID Provider’s keys (docs/oidc.md, "Keys")', () => {
  it('starts with an Ed25519 and an RSA key, RS256 for a client that names no algorithm', () => {
    const config = loadGatewayConfig({ ...base, AUTH_JWT_SIGNING_KEYS: JSON.stringify([ed25519, rsa]), OIDC_CLIENTS: JSON.stringify([client('plain'), client('ed', 'EdDSA')]) });
    expect(config.OIDC_CLIENTS.map((entry) => entry.id_token_signed_response_alg)).toEqual(['RS256', 'EdDSA']);
  });

  it('refuses to start with OIDC_ENABLED and no RSA key, saying what to add', () => {
    expect(problemsOf({ ...base, AUTH_JWT_SIGNING_KEYS: JSON.stringify([ed25519, p256]) })).toEqual([
      expect.stringMatching(/^AUTH_JWT_SIGNING_KEYS: needs an RSA key \(2048 bits or more\) when OIDC_ENABLED is true/),
    ]);
  });

  it('refuses to start with a client asking for an algorithm no key signs, naming the client and the key it needs', () => {
    const problems = problemsOf({ ...base, AUTH_JWT_SIGNING_KEYS: JSON.stringify([ed25519, rsa]), OIDC_CLIENTS: JSON.stringify([client('plain'), client('argocd', 'ES256')]) });
    expect(problems).toEqual([expect.stringMatching(/^OIDC_CLIENTS: client argocd asks for ES256 ID tokens, but AUTH_JWT_SIGNING_KEYS holds no P-256 key$/)]);
  });

  it('needs no RSA key while the provider is off: service tokens are EdDSA', () => {
    expect(problemsOf({ ...base, OIDC_ENABLED: 'false', AUTH_JWT_SIGNING_KEYS: JSON.stringify([ed25519]) })).toEqual([]);
  });
});
