import { randomBytes } from 'node:crypto';
import { ConfigError } from '@latchkey/config';
import { loadTotpConfig } from './config';

const base = {
  DATABASE_URL: 'postgres://db/latchkey',
  REDIS_URL: 'redis://cache:6379',
  NATS_URL: 'nats://broker:4222',
};

function problemsOf(environment: Record<string, string>): readonly string[] {
  try {
    loadTotpConfig(environment);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('loadTotpConfig()', () => {
  it('refuses, in production, the development key the chart publishes', () => {
    const published = { ...base, TOTP_ENCRYPTION_KEY: 'bGF0Y2hrZXktZGV2LXRvdHAta2V5LW5vdC1zZWNyZXQ=' };
    expect(problemsOf(published)).toEqual([]);
    expect(problemsOf({ ...published, NODE_ENV: 'production' })).toEqual([
      'TOTP_ENCRYPTION_KEY: is a development secret published with Latchkey; production needs its own',
    ]);
    expect(problemsOf({ ...base, NODE_ENV: 'production', TOTP_ENCRYPTION_KEY: randomBytes(32).toString('base64') })).toEqual([]);
    expect(problemsOf({ ...base, TOTP_ENCRYPTION_KEY: randomBytes(16).toString('base64') })).toEqual([
      'TOTP_ENCRYPTION_KEY: must be 32 bytes, base64',
    ]);
  });

  it('applies the defaults of docs/api.md and decodes the keys', () => {
    const key = randomBytes(32);
    const previous = [randomBytes(32), randomBytes(32)];
    const config = loadTotpConfig({
      ...base,
      TOTP_ENCRYPTION_KEY: key.toString('base64'),
      TOTP_PREVIOUS_ENCRYPTION_KEYS: previous.map((k) => k.toString('base64')).join(', '),
    });
    expect(config).toMatchObject({
      GRPC_PORT: 50053,
      TOTP_ISSUER: 'Latchkey',
      TOTP_TEMP_TOKEN_TTL_SECONDS: 300,
      RATE_LIMIT_TOTP_FAILURES: 10,
      RATE_LIMIT_TOTP_WINDOW_SECONDS: 900,
      REDIS_KEY_PREFIX: 'latchkey:',
    });
    expect(config.TOTP_ENCRYPTION_KEY.equals(key)).toBe(true);
    expect(config.TOTP_PREVIOUS_ENCRYPTION_KEYS.map((k) => k.toString('hex'))).toEqual(previous.map((k) => k.toString('hex')));
  });

  it('requires an encryption key of exactly 32 bytes, without echoing it', () => {
    expect(problemsOf(base)).toEqual(['TOTP_ENCRYPTION_KEY: is required']);
    const short = randomBytes(16).toString('base64');
    const problems = problemsOf({ ...base, TOTP_ENCRYPTION_KEY: short });
    expect(problems).toEqual(['TOTP_ENCRYPTION_KEY: must be 32 bytes, base64']);
    expect(problems.join()).not.toContain(short);
  });

  it('refuses text that Node would decode leniently into some other key', () => {
    const key = randomBytes(32).toString('base64');
    expect(problemsOf({ ...base, TOTP_ENCRYPTION_KEY: `${key.slice(0, 10)}!${key.slice(11)}` })).toHaveLength(1);
    expect(problemsOf({ ...base, TOTP_ENCRYPTION_KEY: key, TOTP_PREVIOUS_ENCRYPTION_KEYS: `${key},c2hvcnQ=` })).toEqual([
      'TOTP_PREVIOUS_ENCRYPTION_KEYS: must be a comma-separated list of 32-byte base64 keys',
    ]);
  });
});
