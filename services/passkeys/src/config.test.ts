import { ConfigError } from '@latchkey/config';
import { loadPasskeysConfig } from './config';

const base = {
  DATABASE_URL: 'postgres://db/latchkey',
  REDIS_URL: 'redis://cache:6379',
  NATS_URL: 'nats://broker:4222',
};

function problemsOf(environment: Record<string, string>): readonly string[] {
  try {
    loadPasskeysConfig(environment);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('loadPasskeysConfig()', () => {
  it('defaults to the local web app, and reads a list of origins', () => {
    expect(loadPasskeysConfig(base)).toMatchObject({
      WEBAUTHN_RP_ID: 'localhost',
      WEBAUTHN_RP_NAME: 'Latchkey',
      WEBAUTHN_ORIGINS: ['http://localhost:8080'],
      GRPC_PORT: 50056,
    });
    const config = loadPasskeysConfig({
      ...base,
      NODE_ENV: 'production',
      WEBAUTHN_RP_ID: 'Example.com',
      WEBAUTHN_ORIGINS: 'https://accounts.example.com, https://example.com',
    });
    expect(config.WEBAUTHN_RP_ID).toBe('example.com');
    expect(config.WEBAUTHN_ORIGINS).toEqual(['https://accounts.example.com', 'https://example.com']);
  });

  it('refuses origins that cannot use the RP ID, that are not bare origins, or plain HTTP in production', () => {
    expect(problemsOf({ ...base, WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_ORIGINS: 'https://example.org' })).toEqual([
      'WEBAUTHN_ORIGINS: https://example.org cannot use passkeys of WEBAUTHN_RP_ID example.com',
    ]);
    // A host that merely ends like the RP ID is another site.
    expect(problemsOf({ ...base, WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_ORIGINS: 'https://badexample.com' })).toHaveLength(1);
    expect(problemsOf({ ...base, WEBAUTHN_ORIGINS: 'http://localhost:8080/app' })[0]).toMatch(/^WEBAUTHN_ORIGINS\.0: must be origins/);
    expect(problemsOf({ ...base, WEBAUTHN_ORIGINS: ',' })[0]).toMatch(/^WEBAUTHN_ORIGINS: must name at least one origin/);
    expect(problemsOf({ ...base, NODE_ENV: 'production' })).toEqual(['WEBAUTHN_ORIGINS: must be https origins when NODE_ENV=production']);
    expect(problemsOf({ ...base, WEBAUTHN_RP_ID: 'https://example.com' })[0]).toMatch(/^WEBAUTHN_RP_ID: must be a domain name/);
  });
});
