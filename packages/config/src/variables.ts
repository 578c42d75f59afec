import { z } from 'zod';

const ENCRYPTION_KEY_BYTES = 32;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Whether `value` is canonical base64 of exactly one AES-256 key. */
function isEncryptionKey(value: string): boolean {
  return BASE64.test(value) && Buffer.from(value, 'base64').length === ENCRYPTION_KEY_BYTES;
}

/** Builders for the shapes environment variables come in. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65_535).default(fallback),
  int: (fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
    z.coerce.number().int().min(min).max(max).default(fallback),
  bool: (fallback: boolean) => z.stringbool().default(fallback),
  url: (protocols: readonly string[]) =>
    z.string().refine(
      (value) => {
        try {
          return protocols.includes(new URL(value).protocol.replace(/:$/, ''));
        } catch {
          return false;
        }
      },
      { message: `must be a ${protocols.join(' or ')} URL` },
    ),
  csv: () => z.string().default('').transform(commaSeparated),
  /**
   * An AES-256 key given as base64 (packages/secret-box). Node's decoder
   * skips characters it does not know, so the text is checked strictly
   * first: a typo must fail at start, not silently yield another key.
   * Messages never echo the value.
   */
  encryptionKey: () =>
    z
      .string()
      .trim()
      .refine(isEncryptionKey, { message: `must be ${ENCRYPTION_KEY_BYTES} bytes, base64` })
      .transform((value) => Buffer.from(value, 'base64')),
  /** Retired keys, comma-separated, kept so that data sealed with them stays readable. */
  previousEncryptionKeys: () =>
    z
      .string()
      .default('')
      .transform(commaSeparated)
      .refine((values) => values.every(isEncryptionKey), {
        message: `must be a comma-separated list of ${ENCRYPTION_KEY_BYTES}-byte base64 keys`,
      })
      .transform((values) => values.map((value) => Buffer.from(value, 'base64'))),
  /**
   * A JSON document, for the settings that are structured (keys, clients,
   * allow-lists): parsed here, then piped into the schema of its shape,
   * which names what is wrong inside. `description` completes "must be".
   */
  json: (description: string, fallback?: string) =>
    (fallback === undefined ? z.string() : z.string().default(fallback)).transform((text, context) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        context.addIssue({ code: 'custom', message: `must be ${description}` });
        return z.NEVER;
      }
    }),
};

/** The non-empty items of a comma-separated list, trimmed. */
function commaSeparated(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

/** Variables every process reads: environment, logging and tracing. */
export const processVariables = {
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  OTEL_EXPORTER_OTLP_ENDPOINT: env.url(['http', 'https']).optional(),
};

/** `host:port`, as Sentinel and Cluster seed lists name their nodes. */
const HOST_PORT = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/;

/** A comma-separated list of `host:port`, at least one. */
const hostPortList = () =>
  z
    .string()
    .transform(commaSeparated)
    .refine((items) => items.length > 0 && items.every((item) => HOST_PORT.test(item)), {
      message: 'must be a comma-separated list of host:port',
    });

/** NATS_URL: one server or several, comma-separated, each a nats or tls URL. */
const natsServerList = () =>
  z
    .string()
    .transform(commaSeparated)
    .refine(
      (items) =>
        items.length > 0 &&
        items.every((item) => {
          try {
            return ['nats', 'tls'].includes(new URL(item).protocol.replace(/:$/, ''));
          } catch {
            return false;
          }
        }),
      { message: 'must be a nats or tls URL, or several separated by commas' },
    );

/**
 * How a unit reaches Redis (docs/operations.md, "Production topology"):
 * one server (`standalone`, REDIS_URL), a Sentinel group that names the
 * master (`sentinel`), or a Redis Cluster (`cluster`). Credentials and TLS
 * apply in every mode. Each unit's schema spreads these and refines itself
 * with `redisModeProblems`.
 */
export const redisVariables = {
  REDIS_MODE: z.enum(['standalone', 'sentinel', 'cluster']).default('standalone'),
  REDIS_URL: env.url(['redis', 'rediss']).optional(),
  REDIS_SENTINELS: hostPortList().optional(),
  REDIS_SENTINEL_MASTER: z.string().min(1).optional(),
  REDIS_SENTINEL_PASSWORD: z.string().min(1).optional(),
  REDIS_CLUSTER_NODES: hostPortList().optional(),
  REDIS_USERNAME: z.string().min(1).optional(),
  REDIS_PASSWORD: z.string().min(1).optional(),
  REDIS_TLS: env.bool(false),
  /** Prefix for every Redis key, so that several installations can share one Redis. */
  REDIS_KEY_PREFIX: z.string().default('latchkey:'),
};

/** The parsed Redis settings, as `createRedisClient` of @latchkey/db takes them. */
export type RedisSettings = z.output<z.ZodObject<typeof redisVariables>>;

/**
 * The settings each REDIS_MODE needs, checked once at start; a unit's
 * schema calls it from `superRefine` so that a missing one is named with
 * the rest of the bad variables.
 */
export function redisModeProblems(config: RedisSettings, context: z.RefinementCtx): void {
  const require = (name: keyof RedisSettings) => {
    if (config[name] === undefined) context.addIssue({ code: 'custom', path: [name], message: `is required when REDIS_MODE=${config.REDIS_MODE}` });
  };
  if (config.REDIS_MODE === 'standalone') require('REDIS_URL');
  if (config.REDIS_MODE === 'sentinel') {
    require('REDIS_SENTINELS');
    require('REDIS_SENTINEL_MASTER');
  }
  if (config.REDIS_MODE === 'cluster') require('REDIS_CLUSTER_NODES');
}

/**
 * How a unit reaches NATS: the servers (several for a cluster; the client
 * fails over between them and learns the others from the cluster), the
 * replicas of the streams and consumers the units create, and the
 * credentials (docs/operations.md, "NATS permissions").
 */
export const natsVariables = {
  NATS_URL: natsServerList(),
  /**
   * The unit's own NATS user and password, both or neither (docs/operations.md, "NATS permissions");
   * unset on a developer's machine, whose NATS takes anonymous connections.
   */
  NATS_USER: z.string().regex(/^[a-z][a-z0-9_-]*$/, 'must be a unit name').optional(),
  NATS_PASSWORD: z.string().min(1).optional(),
  /** A decentralized-auth credentials file (JWT and NKey seed), as Synadia Cloud and `nsc` issue. */
  NATS_CREDS_FILE: z.string().min(1).optional(),
  /** An NKey seed file, for a server that authenticates users by their NKey. */
  NATS_NKEY_SEED_FILE: z.string().min(1).optional(),
  /** PEM bundle of the CAs the servers' certificates are checked against; TLS is then required. */
  NATS_TLS_CA_FILE: z.string().min(1).optional(),
  /** Replicas of every stream and consumer the units create: 1, or 3 (or 5) on a NATS cluster. */
  NATS_STREAM_REPLICAS: env.int(1, 1, 5),
  /** Prefix of JetStream stream and subject names, so that several installations can share one NATS. */
  NATS_SUBJECT_PREFIX: z
    .string()
    .regex(/^[a-z][a-z0-9_]*$/, 'must be lower-case letters, digits or _')
    .default('latchkey'),
};

/**
 * How a unit reaches PostgreSQL. DATABASE_URL may be PgBouncer in
 * transaction mode: the units keep no session state outside a transaction.
 * What needs a session of its own (the migrations' advisory lock, the
 * outbox's LISTEN) uses DATABASE_SESSION_URL, by default DATABASE_URL.
 */
export const databaseVariables = {
  DATABASE_URL: env.url(['postgres', 'postgresql']),
  DATABASE_SESSION_URL: env.url(['postgres', 'postgresql']).optional(),
};

/**
 * The `aud` of service tokens (docs/api.md, "Service tokens"): the gateway
 * issues them with it, and it is no OpenID client's id, neither in
 * OIDC_CLIENTS nor registered through admin.v1 (identity), since an ID
 * token's `aud` is its client's id and the keys are the same.
 */
export const serviceTokenVariables = {
  AUTH_JWT_AUDIENCE: z.string().min(1).default('latchkey'),
};

/** Backing-service addresses, named as in README.md, "Configuration". */
export const backingServices = {
  ...databaseVariables,
  /** A read replica for post reads, lists and search (posts only; docs/operations.md, "Production topology"). */
  DATABASE_READ_URL: env.url(['postgres', 'postgresql']).optional(),
  ...redisVariables,
  ...natsVariables,
};

/** Mutual TLS between units: what a unit presents and trusts, re-read while it runs. */
export const mutualTlsVariables = {
  /** PEM files; all three or none, and all three in production (docs/operations.md, "Mutual TLS"). */
  GRPC_TLS_CERT_FILE: z.string().optional(),
  GRPC_TLS_KEY_FILE: z.string().optional(),
  GRPC_TLS_CA_FILE: z.string().optional(),
  /** How often the files are read again: a renewed certificate or CA bundle is used without a restart. */
  GRPC_TLS_RELOAD_INTERVAL_MS: env.int(60_000, 100, 3_600_000),
};

/** gRPC listener and the HTTP port for /metrics that every service exposes. */
export const grpcServiceVariables = {
  /** The address every listener of the unit binds (gRPC, metrics, admin); `pnpm stack` sets 127.0.0.1. */
  LISTEN_HOST: z.string().min(1).default('0.0.0.0'),
  GRPC_PORT: env.port(50051),
  METRICS_PORT: env.port(9464),
  ...mutualTlsVariables,
  /** Clients reconnect after this long (no call fails), so that calls spread over new replicas and renewed certificates are used. */
  GRPC_MAX_CONNECTION_AGE_MS: env.int(300_000, 500, 86_400_000),
};

/**
 * The CA bundle of the platform's clients (services beside Latchkey and
 * operators' tools calling sessions.v1 and admin.v1): a CA of their own, so
 * that no unit's certificate opens a platform API and no platform client's
 * opens a unit. Required whenever mutual TLS is on.
 */
export const platformApiVariables = {
  PLATFORM_TLS_CA_FILE: z.string().optional(),
};

/** With mutual TLS on, a unit serving a platform API needs the platform clients' CA bundle. */
export function platformCaGiven(config: { GRPC_TLS_CERT_FILE?: string | undefined; PLATFORM_TLS_CA_FILE?: string | undefined }): boolean {
  return config.GRPC_TLS_CERT_FILE === undefined || config.PLATFORM_TLS_CA_FILE !== undefined;
}

export const platformCaProblem = {
  message: 'is required with GRPC_TLS_CERT_FILE: the CA bundle of the platform clients (docs/operations.md, "Mutual TLS")',
  path: ['PLATFORM_TLS_CA_FILE'],
};
