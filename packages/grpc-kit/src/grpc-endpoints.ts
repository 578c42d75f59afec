import { createMetricsRegistry, startOperationsServer, type Logger } from '@latchkey/telemetry';
import type { ServiceDefinitionShape, ServiceHandlers } from './service-definition';
import type { ServerMiddleware } from './server-middleware';
import { ServiceServer } from './service-server';
import type { TlsFiles } from './tls';

/** The listener variables every gRPC unit reads (see grpcServiceVariables in @latchkey/config). */
export interface GrpcEndpointSettings {
  readonly GRPC_PORT: number;
  readonly METRICS_PORT: number;
  readonly GRPC_TLS_CERT_FILE?: string | undefined;
  readonly GRPC_TLS_KEY_FILE?: string | undefined;
  readonly GRPC_TLS_CA_FILE?: string | undefined;
}

export interface GrpcEndpoints {
  readonly grpcPort: number;
  readonly metricsPort: number;
  /** Stops taking calls, lets those in flight finish (bounded), closes the operations port. */
  stop(): Promise<void>;
}

/** A service for callers outside the units catalogue, who are named in configuration. */
export interface PlatformService<Definition extends ServiceDefinitionShape = ServiceDefinitionShape> {
  readonly name: string;
  readonly definition: Definition;
  readonly handlers: ServiceHandlers<Definition>;
  /** With mutual TLS, the certificate CNs it answers. */
  readonly callers: readonly string[];
}

/** How long in-flight calls may run after SIGTERM; below Kubernetes' default 30 s grace. */
const SHUTDOWN_GRACE_MS = 10_000;

export function tlsFilesOf(settings: Omit<GrpcEndpointSettings, 'GRPC_PORT' | 'METRICS_PORT'>): TlsFiles {
  return { certFile: settings.GRPC_TLS_CERT_FILE, keyFile: settings.GRPC_TLS_KEY_FILE, caFile: settings.GRPC_TLS_CA_FILE };
}

/**
 * What every gRPC unit serves: its service with grpc.health.v1 on GRPC_PORT
 * (mutual TLS when the certificate files are set, and then only for
 * `callers`), and /metrics, /healthz
 * and /readyz on METRICS_PORT. `ready` says whether its dependencies answer.
 */
export async function startGrpcEndpoints<Definition extends ServiceDefinitionShape>(options: {
  readonly unit: string;
  readonly settings: GrpcEndpointSettings;
  readonly logger: Logger;
  readonly service: { readonly name: string; readonly definition: Definition; readonly handlers: ServiceHandlers<Definition> };
  readonly ready: () => Promise<boolean>;
  /** The units that may call it (the units catalogue's callers); enforced with mutual TLS. */
  readonly callers: readonly string[];
  /** More services on the same port, each with the callers it answers (the platform APIs). */
  readonly platformServices?: readonly PlatformService[];
  /** Unit-specific server middleware, around every handler. */
  readonly middleware?: readonly ServerMiddleware[];
}): Promise<GrpcEndpoints> {
  const registry = createMetricsRegistry(options.unit);
  const server = new ServiceServer({
    logger: options.logger,
    registry,
    tls: tlsFilesOf(options.settings),
    allowedCallers: options.callers,
    middleware: options.middleware,
  });
  server.addService(options.service.name, options.service.definition, options.service.handlers);
  for (const extra of options.platformServices ?? []) {
    server.addService(extra.name, extra.definition, extra.handlers, { allowedCallers: extra.callers });
  }
  const grpcPort = await server.listen('0.0.0.0', options.settings.GRPC_PORT);
  const operations = await startOperationsServer({ port: options.settings.METRICS_PORT, registry, ready: options.ready });
  return {
    grpcPort,
    metricsPort: operations.port,
    async stop() {
      await server.shutdown(SHUTDOWN_GRACE_MS);
      await operations.close();
    },
  };
}
