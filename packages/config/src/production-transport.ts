import { ConfigError } from './load-config';

/**
 * docs/operations.md, "Mutual TLS": in production a unit that serves or
 * calls gRPC runs only with its certificate, since over plaintext no
 * service can tell which unit calls it. Checked when a unit starts to
 * serve, not when it loads its configuration: the migration Jobs run
 * before the certificates exist and speak only to PostgreSQL.
 */
export function assertMutualTlsInProduction(config: {
  readonly NODE_ENV: string;
  readonly GRPC_TLS_CERT_FILE?: string | undefined;
  readonly GRPC_TLS_KEY_FILE?: string | undefined;
  readonly GRPC_TLS_CA_FILE?: string | undefined;
}): void {
  if (config.NODE_ENV !== 'production') return;
  const missing = (['GRPC_TLS_CERT_FILE', 'GRPC_TLS_KEY_FILE', 'GRPC_TLS_CA_FILE'] as const).filter((name) => config[name] === undefined);
  if (missing.length === 0) return;
  throw new ConfigError(
    missing.map((name) => `${name}: is required when NODE_ENV is production (mutual TLS between units; docs/operations.md, "Mutual TLS")`),
  );
}
