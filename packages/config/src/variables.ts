import { z } from 'zod';

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
  csv: () =>
    z
      .string()
      .default('')
      .transform((value) =>
        value
          .split(',')
          .map((item) => item.trim())
          .filter((item) => item.length > 0),
      ),
};

/** Variables every process reads: environment, logging and tracing. */
export const processVariables = {
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  OTEL_EXPORTER_OTLP_ENDPOINT: env.url(['http', 'https']).optional(),
};

/** Backing-service addresses, named as in README.md, "Configuration". */
export const backingServices = {
  DATABASE_URL: env.url(['postgres', 'postgresql']),
  REDIS_URL: env.url(['redis', 'rediss']),
  /** Prefix for every Redis key, so that several installations can share one Redis. */
  REDIS_KEY_PREFIX: z.string().default('latchkey:'),
  NATS_URL: env.url(['nats', 'tls']),
  /**
   * The unit's own NATS user and password, both or neither (docs/operations.md, "NATS permissions");
   * unset on a developer's machine, whose NATS takes anonymous connections.
   */
  NATS_USER: z.string().regex(/^[a-z][a-z0-9_-]*$/, 'must be a unit name').optional(),
  NATS_PASSWORD: z.string().min(1).optional(),
  /** Prefix of JetStream stream and subject names, so that several installations can share one NATS. */
  NATS_SUBJECT_PREFIX: z
    .string()
    .regex(/^[a-z][a-z0-9_]*$/, 'must be lower-case letters, digits or _')
    .default('latchkey'),
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
