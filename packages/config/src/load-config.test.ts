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

  it('rejects a URL of the wrong protocol', () => {
    expect(() => loadConfig(schema, { DATABASE_URL: 'mysql://db/x' })).toThrow(/DATABASE_URL: must be a postgres URL/);
  });
});
