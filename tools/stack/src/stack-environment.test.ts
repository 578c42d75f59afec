import { ConfigError } from '@latchkey/config';
import {
  databaseNameOf,
  databaseUrlFor,
  embeddedS3Variables,
  localDefaults,
  mergeEnvironment,
  readStackInputs,
} from './stack-environment';

describe('localDefaults', () => {
  it('holds the local values of docs/api.md, "Configuration"', () => {
    expect(localDefaults({ publicAppUrl: 'http://localhost:8080', totpEncryptionKey: 'a2V5' })).toEqual({
      GATEWAY_HOST: '127.0.0.1',
      LISTEN_HOST: '127.0.0.1',
      REDIS_URL: 'redis://127.0.0.1:6379',
      NATS_URL: 'nats://127.0.0.1:4222',
      PUBLIC_APP_URL: 'http://localhost:8080',
      WEBAUTHN_RP_ID: 'localhost',
      WEBAUTHN_ORIGINS: 'http://localhost:8080',
      COOKIE_SECURE: 'false',
      AUTH_EMAIL_VERIFICATION_TOKEN_EXPIRE_TIME: '60',
      TOTP_ISSUER: 'Latchkey (local)',
      TOTP_ENCRYPTION_KEY: 'a2V5',
      OIDC_ENABLED: 'true',
      MAIL_FROM: 'Latchkey <no-reply@localhost>',
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
    });
  });

  it('sets no tracing endpoint, so tracing stays off', () => {
    expect(localDefaults({ publicAppUrl: 'http://localhost:8080', totpEncryptionKey: undefined })).not.toHaveProperty(
      'OTEL_EXPORTER_OTLP_ENDPOINT',
    );
  });
});

describe('mergeEnvironment', () => {
  it('keeps given variables, fills the unset ones from the defaults and applies overrides over both', () => {
    const merged = mergeEnvironment(
      { PATH: '/usr/bin', LOG_LEVEL: 'debug', NODE_ENV: undefined, GATEWAY_PORT: '9000' },
      { LOG_LEVEL: 'info', NODE_ENV: 'development' },
      { GATEWAY_PORT: '8080' },
    );
    expect(merged).toEqual({ PATH: '/usr/bin', LOG_LEVEL: 'debug', NODE_ENV: 'development', GATEWAY_PORT: '8080' });
  });

  it('treats an empty or blank given variable as unset, as the services do', () => {
    const defaults = { LOG_LEVEL: 'info', TOTP_ISSUER: 'Latchkey (local)' };
    expect(mergeEnvironment({ LOG_LEVEL: '', TOTP_ISSUER: '  ' }, defaults, {})).toEqual(defaults);
  });

  it('passes an empty variable through when there is no default for it', () => {
    expect(mergeEnvironment({ ALLOWED_ORIGINS: '' }, {}, {})).toEqual({ ALLOWED_ORIGINS: '' });
  });

  it('ignores undefined defaults and overrides', () => {
    expect(mergeEnvironment({ A: 'given' }, { A: undefined, B: undefined }, { A: undefined, C: undefined })).toEqual({
      A: 'given',
    });
  });
});

describe('embeddedS3Variables', () => {
  it('points every S3 variable at the embedded store, path-style', () => {
    expect(embeddedS3Variables('http://127.0.0.1:4569', 'latchkey-posts')).toEqual({
      S3_ENDPOINT: 'http://127.0.0.1:4569',
      S3_REGION: 'us-east-1',
      S3_BUCKET: 'latchkey-posts',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: 'true',
    });
  });
});

describe('databaseUrlFor', () => {
  it('is the local server and database latchkey by default', () => {
    expect(databaseUrlFor(undefined, undefined)).toBe('postgres://postgres@127.0.0.1:5432/latchkey');
  });

  it('keeps the database DATABASE_URL names', () => {
    expect(databaseUrlFor('postgres://app:pw@db.internal:6543/mine?sslmode=disable', undefined)).toBe(
      'postgres://app:pw@db.internal:6543/mine?sslmode=disable',
    );
  });

  it('uses latchkey when DATABASE_URL names no database', () => {
    expect(databaseUrlFor('postgres://postgres@127.0.0.1:5432', undefined)).toBe(
      'postgres://postgres@127.0.0.1:5432/latchkey',
    );
  });

  it('replaces the database with the one asked for', () => {
    expect(databaseUrlFor('postgres://postgres@127.0.0.1:5432/latchkey', 'e2e_1')).toBe(
      'postgres://postgres@127.0.0.1:5432/e2e_1',
    );
    expect(databaseUrlFor(undefined, 'e2e_2')).toBe('postgres://postgres@127.0.0.1:5432/e2e_2');
  });
});

describe('databaseNameOf', () => {
  it('reads the database from the path, decoded', () => {
    expect(databaseNameOf('postgres://postgres@127.0.0.1:5432/latchkey')).toBe('latchkey');
    expect(databaseNameOf('postgres://postgres@127.0.0.1:5432/my%20db')).toBe('my db');
  });
});

describe('readStackInputs', () => {
  it('defaults the bucket and the gateway port', () => {
    const inputs = readStackInputs({});
    expect(inputs.S3_BUCKET).toBe('latchkey-posts');
    expect(inputs.GATEWAY_PORT).toBe(8080);
    expect(inputs.SMTP_URL).toBeUndefined();
  });

  it('names every variable it cannot use', () => {
    let thrown: unknown;
    try {
      readStackInputs({ DATABASE_URL: 'mysql://x', GATEWAY_PORT: 'eighty', SMTP_URL: 'http://mail' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    const problems = (thrown as ConfigError).problems.join('\n');
    expect(problems).toContain('DATABASE_URL');
    expect(problems).toContain('GATEWAY_PORT');
    expect(problems).toContain('SMTP_URL');
  });
});
