import { z } from 'zod';
import { backingServices, env, loadConfig } from '@latchkey/config';

export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * The variables the launcher itself reads, validated before anything starts
 * so that a typo fails with the variable's name instead of a child's crash.
 * Everything else passes through to the processes untouched.
 */
const stackInputSchema = z.object({
  DATABASE_URL: backingServices.DATABASE_URL.optional(),
  REDIS_URL: backingServices.REDIS_URL.optional(),
  NATS_URL: backingServices.NATS_URL.optional(),
  SMTP_URL: env.url(['smtp', 'smtps']).optional(),
  S3_ENDPOINT: env.url(['http', 'https']).optional(),
  S3_BUCKET: z.string().min(3).default('latchkey-posts'),
  GATEWAY_PORT: env.port(8080),
  PUBLIC_APP_URL: env.url(['http', 'https']).optional(),
  TOTP_ENCRYPTION_KEY: z.string().optional(),
  AUTH_JWT_SIGNING_KEYS: z.string().optional(),
  WEBHOOK_SEALING_PUBLIC_KEY: z.string().optional(),
});

export type StackInputs = z.output<typeof stackInputSchema>;

/** Parses what the launcher reads; throws ConfigError naming every bad variable. */
export function readStackInputs(environment: Environment): StackInputs {
  return loadConfig(stackInputSchema, environment);
}

/** Where the local defaults point: the machine's own services on their standard ports. */
export const localAddresses = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/latchkey',
  REDIS_URL: 'redis://127.0.0.1:6379',
  NATS_URL: 'nats://127.0.0.1:4222',
} as const;

export const defaultDatabaseName = 'latchkey';

/** What every process of the stack listens on. */
export const localListenAddress = '127.0.0.1';

/**
 * Defaults for a developer's machine (docs/api.md, "Configuration"), used for every
 * variable the environment leaves unset. Every listener binds 127.0.0.1:
 * without mutual TLS the units cannot tell who calls them, so nothing on
 * the network may reach them. The verification token lives 60
 * minutes as the chart sets it, not the code default of 1, so that a link
 * read a few minutes later still works. Passkeys belong to the app's host
 * and work on its pages (docs/api.md, "Passkeys").
 */
export function localDefaults(settings: {
  publicAppUrl: string;
  /** Undefined when the environment gives one. */
  totpEncryptionKey: string | undefined;
  /** Undefined when the environment gives them. */
  signingKeys?: string | undefined;
  /** Identity's WEBHOOK_SEALING_PUBLIC_KEY, from the stack's sealing key; undefined when the environment gives it. */
  webhookSealingPublicKey?: string | undefined;
  /** The jobs worker's WEBHOOK_SEALING_PRIVATE_KEY, the other half of that pair. */
  webhookSealingPrivateKey?: string | undefined;
}): Record<string, string | undefined> {
  return {
    GATEWAY_HOST: localListenAddress,
    LISTEN_HOST: localListenAddress,
    REDIS_URL: localAddresses.REDIS_URL,
    NATS_URL: localAddresses.NATS_URL,
    PUBLIC_APP_URL: settings.publicAppUrl,
    WEBAUTHN_RP_ID: new URL(settings.publicAppUrl).hostname,
    WEBAUTHN_ORIGINS: new URL(settings.publicAppUrl).origin,
    COOKIE_SECURE: 'false',
    AUTH_EMAIL_VERIFICATION_TOKEN_EXPIRE_TIME: '60',
    TOTP_ISSUER: 'Latchkey (local)',
    TOTP_ENCRYPTION_KEY: settings.totpEncryptionKey,
    AUTH_JWT_SIGNING_KEYS: settings.signingKeys,
    WEBHOOK_SEALING_PUBLIC_KEY: settings.webhookSealingPublicKey,
    WEBHOOK_SEALING_PRIVATE_KEY: settings.webhookSealingPrivateKey,
    // Latchkey as an OpenID Provider for local applications (docs/oidc.md).
    OIDC_ENABLED: 'true',
    MAIL_FROM: 'Latchkey <no-reply@localhost>',
    NODE_ENV: 'development',
    LOG_LEVEL: 'info',
  };
}

/** The variables that point the processes at the embedded S3 store. */
export function embeddedS3Variables(endpoint: string, bucket: string): Record<string, string> {
  return {
    S3_ENDPOINT: endpoint,
    S3_REGION: 'us-east-1',
    S3_BUCKET: bucket,
    // s3rver accepts any signature made with these fixed credentials.
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    S3_FORCE_PATH_STYLE: 'true',
  };
}

function isSet(value: string | undefined): value is string {
  // As in @latchkey/config: `FOO=` means "use the default".
  return value !== undefined && value.trim() !== '';
}

/**
 * The environment every process gets: `given` as it is, `defaults` for what
 * it leaves unset, and `overrides` (what the launcher decided: ports,
 * addresses, embedded servers) over both.
 */
export function mergeEnvironment(
  given: Environment,
  defaults: Environment,
  overrides: Environment,
): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    if (value !== undefined) merged[name] = value;
  }
  for (const [name, value] of Object.entries(defaults)) {
    if (isSet(value) && !isSet(merged[name])) merged[name] = value;
  }
  for (const [name, value] of Object.entries(overrides)) {
    if (value !== undefined) merged[name] = value;
  }
  return merged;
}

/**
 * DATABASE_URL with the database `name` when given, else the one the URL
 * names, else `latchkey`: the local server's default is the user's own
 * database, which the services must not share.
 */
export function databaseUrlFor(given: string | undefined, name: string | undefined): string {
  const url = new URL(given ?? localAddresses.DATABASE_URL);
  if (name !== undefined && name !== '') url.pathname = `/${encodeURIComponent(name)}`;
  else if (url.pathname === '' || url.pathname === '/') url.pathname = `/${defaultDatabaseName}`;
  return url.toString();
}

/** The database a PostgreSQL URL names. */
export function databaseNameOf(databaseUrl: string): string {
  return decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
}
