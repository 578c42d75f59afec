import { ConfigError } from '@latchkey/config';
import { loadOAuthConfig } from './config';

const base = {
  DATABASE_URL: 'postgres://db/latchkey',
  REDIS_URL: 'redis://cache:6379',
  NATS_URL: 'nats://broker:4222',
};
const google = { GOOGLE_CLIENT_ID: 'id', GOOGLE_CLIENT_SECRET: 'secret', GOOGLE_REDIRECT_URI: 'https://app.example/cb/google' };
const github = { GITHUB_CLIENT_ID: 'id', GITHUB_CLIENT_SECRET: 'secret', GITHUB_REDIRECT_URI: 'https://app.example/cb/github' };

function problemsOf(environment: Record<string, string>): readonly string[] {
  try {
    loadOAuthConfig(environment);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('loadOAuthConfig()', () => {
  it('applies the defaults of docs/api.md, "Configuration" and the README configuration table', () => {
    const config = loadOAuthConfig(base);
    expect(config).toMatchObject({
      GRPC_PORT: 50052,
      GOOGLE_ISSUER: 'https://accounts.google.com',
      GITHUB_AUTHORIZATION_URL: 'https://github.com/login/oauth/authorize',
      GITHUB_TOKEN_URL: 'https://github.com/login/oauth/access_token',
      GITHUB_API_URL: 'https://api.github.com',
      OAUTH_PENDING_SIGNUP_TTL_MINUTES: 10,
      OAUTH_STATE_TTL_SECONDS: 600,
      OAUTH_PROVIDER_TIMEOUT_MS: 5_000,
    });
  });

  it('lets a provider be off outside production, but not half-configured', () => {
    expect(problemsOf({ ...base, ...google })).toEqual([]);
    expect(problemsOf({ ...base, GITHUB_CLIENT_ID: 'id' })).toEqual([
      'GITHUB_CLIENT_SECRET: is required: set all of GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET, GITHUB_REDIRECT_URI or none',
      'GITHUB_REDIRECT_URI: is required: set all of GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET, GITHUB_REDIRECT_URI or none',
    ]);
  });

  it('needs every provider in production', () => {
    const problems = problemsOf({ ...base, ...google, NODE_ENV: 'production' });
    expect(problems).toEqual([
      'GITHUB_CLIENT_ID: is required when NODE_ENV=production',
      'GITHUB_CLIENT_SECRET: is required when NODE_ENV=production',
      'GITHUB_REDIRECT_URI: is required when NODE_ENV=production',
    ]);
  });

  it('accepts plain-HTTP provider endpoints only outside production', () => {
    const plain = { GOOGLE_ISSUER: 'http://127.0.0.1:9000', GITHUB_API_URL: 'http://127.0.0.1:9001' };
    expect(problemsOf({ ...base, ...google, ...github, ...plain })).toEqual([]);
    expect(problemsOf({ ...base, ...google, ...github, ...plain, NODE_ENV: 'production' })).toEqual([
      'GOOGLE_ISSUER: must be an https URL when NODE_ENV=production',
      'GITHUB_API_URL: must be an https URL when NODE_ENV=production',
    ]);
  });

  it('switches SSO on with a public URL and a key together, and keeps private issuers out of production', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    const sso = { SSO_PUBLIC_URL: 'https://auth.example', SSO_ENCRYPTION_KEY: key };
    expect(loadOAuthConfig({ ...base, ...sso }).SSO_ENCRYPTION_KEY).toEqual(Buffer.alloc(32, 7));
    expect(problemsOf({ ...base, SSO_PUBLIC_URL: 'https://auth.example' })).toEqual([
      'SSO_ENCRYPTION_KEY: is required: set both of SSO_PUBLIC_URL and SSO_ENCRYPTION_KEY or neither',
    ]);
    expect(problemsOf({ ...base, SSO_PUBLIC_URL: 'https://auth.example', SSO_ENCRYPTION_KEY: 'short' })).toEqual([
      'SSO_ENCRYPTION_KEY: must be 32 bytes, base64',
    ]);
    expect(problemsOf({ ...base, ...google, ...github, ...sso, SSO_PUBLIC_URL: 'http://auth.example', SSO_ALLOW_PRIVATE_ISSUERS: 'true', NODE_ENV: 'production' })).toEqual([
      'SSO_PUBLIC_URL: must be an https URL when NODE_ENV=production',
      'SSO_ALLOW_PRIVATE_ISSUERS: must be false when NODE_ENV=production',
    ]);
  });
});
