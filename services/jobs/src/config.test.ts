import { generateKeyPairSync } from 'node:crypto';
import { loadJobsConfig } from './config';

const ed25519 = { kid: 'ed', ...generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) };
const rsa = { kid: 'rsa', ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }) };
const base = {
  DATABASE_URL: 'postgres://127.0.0.1/latchkey',
  REDIS_URL: 'redis://127.0.0.1:6379',
  NATS_URL: 'nats://127.0.0.1:4222',
  SMTP_URL: 'smtp://127.0.0.1:25',
  PUBLIC_APP_URL: 'https://accounts.example.com',
  OIDC_ENABLED: 'true',
};

describe('the keys of logout tokens', () => {
  it('are the gateway’s, with the RSA key that signs for clients that name no algorithm', () => {
    const config = loadJobsConfig({ ...base, AUTH_JWT_SIGNING_KEYS: JSON.stringify([ed25519, rsa]) });
    expect(config.AUTH_JWT_SIGNING_KEYS?.map((key) => key.alg)).toEqual(['EdDSA', 'RS256']);
  });

  it('refuse to start with OIDC_ENABLED and no RSA key', () => {
    expect(() => loadJobsConfig({ ...base, AUTH_JWT_SIGNING_KEYS: JSON.stringify([ed25519]) })).toThrow(/AUTH_JWT_SIGNING_KEYS: needs an RSA key \(2048 bits or more\)/);
  });
});
