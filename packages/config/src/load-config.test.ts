import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError, env, loadConfig } from './index';

const schema = z.object({
  DATABASE_URL: env.url(['postgres']),
  GATEWAY_PORT: env.port(8080),
  COOKIE_SECURE: env.bool(true),
  ALLOWED_ORIGINS: env.csv(),
});

describe('loadConfig()', () => {
  it('applies defaults and converts types', () => {
    const config = loadConfig(schema, { DATABASE_URL: 'postgres://db/x', COOKIE_SECURE: 'false', ALLOWED_ORIGINS: 'a, b,' });
    expect(config).toEqual({ DATABASE_URL: 'postgres://db/x', GATEWAY_PORT: 8080, COOKIE_SECURE: false, ALLOWED_ORIGINS: ['a', 'b'] });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig(schema, { DATABASE_URL: 'postgres://db/x', GATEWAY_PORT: '' }).GATEWAY_PORT).toBe(8080);
  });

  it('lists every bad variable in one error', () => {
    let thrown: unknown;
    try {
      loadConfig(schema, { GATEWAY_PORT: 'eighty', COOKIE_SECURE: 'maybe' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    const { problems, message } = thrown as ConfigError;
    expect(problems).toHaveLength(3);
    expect(message).toMatch(/DATABASE_URL: is required/);
    expect(message).toMatch(/GATEWAY_PORT/);
    expect(message).toMatch(/COOKIE_SECURE/);
  });

  it('parses a JSON variable into the shape it pipes into, or names what is wrong', () => {
    const jsonSchema = z.object({
      CLIENTS: env.json('a JSON array of names', '[]').pipe(z.array(z.string())),
      KEYS: env.json('a JSON object').pipe(z.record(z.string(), z.number())),
    });
    expect(loadConfig(jsonSchema, { KEYS: '{"a":1}' })).toEqual({ CLIENTS: [], KEYS: { a: 1 } });
    expect(loadConfig(jsonSchema, { CLIENTS: '["x"]', KEYS: '{}' }).CLIENTS).toEqual(['x']);
    expect(() => loadConfig(jsonSchema, { CLIENTS: '[x', KEYS: '{}' })).toThrow(/CLIENTS: must be a JSON array of names/);
    expect(() => loadConfig(jsonSchema, { CLIENTS: '[1]', KEYS: '{}' })).toThrow(/CLIENTS\.0: /);
    expect(() => loadConfig(jsonSchema, {})).toThrow(/KEYS: is required/);
  });

  it('rejects a URL of the wrong protocol', () => {
    expect(() => loadConfig(schema, { DATABASE_URL: 'mysql://db/x' })).toThrow(/DATABASE_URL: must be a postgres URL/);
  });

  it('refuses, in production only, a secret published for development, naming the variable and never the value', () => {
    const withSecrets = z.object({
      NODE_ENV: z.string().optional(),
      DATABASE_URL: env.url(['postgres']),
      S3_SECRET_ACCESS_KEY: z.string().optional(),
      TOTP_PREVIOUS_ENCRYPTION_KEYS: env.csv(),
      AUTH_JWT_SIGNING_KEYS: z.string().optional(),
    });
    const published = {
      DATABASE_URL: 'postgres://latchkey:latchkey@db:5432/latchkey',
      S3_SECRET_ACCESS_KEY: 'latchkey-dev-secret',
      TOTP_PREVIOUS_ENCRYPTION_KEYS: `${'A'.repeat(43)}=, bGF0Y2hrZXktZGV2LXRvdHAta2V5LW5vdC1zZWNyZXQ=`,
      // The chart's development signing key, behind a key of one's own: still published.
      AUTH_JWT_SIGNING_KEYS: '[{"kid":"own"},{"kid":"latchkey-dev-2026","crv":"Ed25519","d":"bkf76sntkX_Yd_Kln4T1NV8yABYvcF8sLLk_JTrHVlw"}]',
    };
    expect(loadConfig(withSecrets, { ...published, NODE_ENV: 'development' }).S3_SECRET_ACCESS_KEY).toBe('latchkey-dev-secret');
    let thrown: unknown;
    try {
      loadConfig(withSecrets, { ...published, NODE_ENV: 'production' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    const { problems, message } = thrown as ConfigError;
    expect(problems.map((problem) => problem.split(':')[0])).toEqual([
      'DATABASE_URL',
      'S3_SECRET_ACCESS_KEY',
      'TOTP_PREVIOUS_ENCRYPTION_KEYS',
      'AUTH_JWT_SIGNING_KEYS',
    ]);
    expect(message).not.toMatch(/latchkey-dev-secret|bGF0Y2hr|latchkey@|bkf76/);
    const own = { DATABASE_URL: 'postgres://app:s3cr3t@db:5432/latchkey', S3_SECRET_ACCESS_KEY: 'own', NODE_ENV: 'production' };
    expect(loadConfig(withSecrets, own).DATABASE_URL).toBe(own.DATABASE_URL);
  });

  it('refuses in production the chart’s development RSA key beside an Ed25519 key of one’s own', () => {
    const schema = z.object({ NODE_ENV: z.string().optional(), AUTH_JWT_SIGNING_KEYS: z.string().optional() });
    const chartValues = readFileSync(path.resolve(__dirname, '../../../charts/latchkey/values.yaml'), 'utf8');
    const published = /"kty":"RSA"[^}]*"d":"([^"]+)"/.exec(chartValues)?.[1];
    expect(published).toBeDefined();
    const keys = `[{"kid":"own","kty":"OKP"},{"kid":"copied","kty":"RSA","d":"${published!}"}]`;
    expect(() => loadConfig(schema, { NODE_ENV: 'production', AUTH_JWT_SIGNING_KEYS: keys })).toThrow(/AUTH_JWT_SIGNING_KEYS: is a development secret published with Latchkey/);
    expect(loadConfig(schema, { NODE_ENV: 'development', AUTH_JWT_SIGNING_KEYS: keys }).AUTH_JWT_SIGNING_KEYS).toBe(keys);
  });
});
