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

/** gRPC listener and the HTTP port for /metrics that every service exposes. */
export const grpcServiceVariables = {
  GRPC_PORT: env.port(50051),
  METRICS_PORT: env.port(9464),
  /** PEM files for mutual TLS between units; all three or none. */
  GRPC_TLS_CERT_FILE: z.string().optional(),
  GRPC_TLS_KEY_FILE: z.string().optional(),
  GRPC_TLS_CA_FILE: z.string().optional(),
};
