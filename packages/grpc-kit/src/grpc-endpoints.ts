import { createMetricsRegistry, startOperationsServer, type Logger } from '@latchkey/telemetry';
import type { Registry } from 'prom-client';
import { observeCertificates } from './certificate-observer';
import type { CallerAllowList } from './caller-identity';
import type { ServiceDefinitionShape, ServiceHandlers } from './service-definition';
import type { ServerMiddleware } from './server-middleware';
import { ServiceServer } from './service-server';
import type { TlsFiles } from './tls';

/** The mutual-TLS variables (mutualTlsVariables in @latchkey/config). */
export interface MutualTlsSettings {
  readonly GRPC_TLS_CERT_FILE?: string | undefined;
  readonly GRPC_TLS_KEY_FILE?: string | undefined;
  readonly GRPC_TLS_CA_FILE?: string | undefined;
  readonly GRPC_TLS_RELOAD_INTERVAL_MS?: number | undefined;
}

/** The listener variables every gRPC unit reads (see grpcServiceVariables in @latchkey/config). */
export interface GrpcEndpointSettings extends MutualTlsSettings {
  readonly NODE_ENV: string;
  readonly LISTEN_HOST: string;
  readonly GRPC_PORT: number;
  readonly METRICS_PORT: number;
  readonly GRPC_MAX_CONNECTION_AGE_MS: number;
  /** With a platform listener: the platform clients' CA bundle (platformApiVariables). */
  readonly PLATFORM_TLS_CA_FILE?: string | undefined;
}

export interface GrpcEndpoints {
  readonly grpcPort: number;
  readonly metricsPort: number;
  /** The platform listener's port, when there is one. */
  readonly platformPort?: number;
  /** Stops taking calls, lets those in flight finish (bounded), closes the operations port. */
  stop(): Promise<void>;
}

/** A service for callers outside the units catalogue (the platform's clients), who are named in configuration. */
export interface PlatformService<Definition extends ServiceDefinitionShape = ServiceDefinitionShape> {
  readonly name: string;
  readonly definition: Definition;
  readonly handlers: ServiceHandlers<Definition>;
  /** With mutual TLS, the subject alternative names it answers, for every method or per method. */
  readonly callers: CallerAllowList;
}

/** How long in-flight calls may run after SIGTERM; below Kubernetes' default 30 s grace. */
const SHUTDOWN_GRACE_MS = 10_000;

export function tlsFilesOf(settings: MutualTlsSettings): TlsFiles {
  return {
    certFile: settings.GRPC_TLS_CERT_FILE,
    keyFile: settings.GRPC_TLS_KEY_FILE,
    caFile: settings.GRPC_TLS_CA_FILE,
    reloadIntervalMs: settings.GRPC_TLS_RELOAD_INTERVAL_MS,
  };
}

/**
 * What a platform listener presents (the unit's own certificate) and whom it
 * trusts (the platform clients' CA bundle, not the units'), or plaintext
 * without mutual TLS.
 */
export function platformTlsFilesOf(settings: MutualTlsSettings & { readonly PLATFORM_TLS_CA_FILE?: string | undefined }): TlsFiles {
  if (settings.GRPC_TLS_CERT_FILE === undefined) return {};
  if (settings.PLATFORM_TLS_CA_FILE === undefined) {
    throw new Error('PLATFORM_TLS_CA_FILE is required with GRPC_TLS_CERT_FILE: the CA bundle of the platform clients');
  }
  return { ...tlsFilesOf(settings), caFile: settings.PLATFORM_TLS_CA_FILE };
}

/**
 * A listener of its own for the platform APIs (sessions.v1 on the gateway,
 * admin.v1 on identity): callers are named by a subject alternative name of
 * a certificate from the platform clients' CA, each method answers only the
 * names listed for it, and a unit's certificate is refused in the handshake.
 */
export async function startPlatformServer(options: {
  readonly logger: Logger;
  readonly registry: Registry;
  readonly settings: MutualTlsSettings & {
    readonly LISTEN_HOST: string;
    readonly GRPC_MAX_CONNECTION_AGE_MS: number;
    readonly PLATFORM_TLS_CA_FILE?: string | undefined;
  };
  readonly port: number;
  readonly services: readonly PlatformService[];
}): Promise<{ server: ServiceServer; port: number }> {
  const server = new ServiceServer({
    logger: options.logger,
    registry: options.registry,
    tls: platformTlsFilesOf(options.settings),
    callerIdentity: 'subject-alt-name',
    maxConnectionAgeMs: options.settings.GRPC_MAX_CONNECTION_AGE_MS,
  });
  for (const service of options.services) {
    server.addService(service.name, service.definition, service.handlers, { allowedCallers: service.callers });
  }
  return { server, port: await server.listen(options.settings.LISTEN_HOST, options.port) };
}

/**
 * What every gRPC unit serves: its service with grpc.health.v1 on GRPC_PORT
 * (mutual TLS when the certificate files are set, and then only for
 * `callers`), the platform APIs on
 * a listener of their own when given, and /metrics, /healthz and /readyz on
 * METRICS_PORT. `ready` says whether it can do its work.
 */
export async function startGrpcEndpoints<Definition extends ServiceDefinitionShape>(options: {
  readonly unit: string;
  readonly settings: GrpcEndpointSettings;
  readonly logger: Logger;
  readonly service: { readonly name: string; readonly definition: Definition; readonly handlers: ServiceHandlers<Definition> };
  readonly ready: () => Promise<boolean>;
  /** The units that may call it, per RPC (the units catalogue's methodCallersOf); enforced with mutual TLS. */
  readonly callers: CallerAllowList;
  /** More services of the unit on GRPC_PORT for other units, each answering only its own callers (unit names, per RPC). */
  readonly internalServices?: readonly PlatformService[];
  /** Platform APIs, on a port of their own. */
  readonly platform?: { readonly port: number; readonly services: readonly PlatformService[] };
  /** Unit-specific server middleware, around every handler. */
  readonly middleware?: readonly ServerMiddleware[];
}): Promise<GrpcEndpoints> {
  const { settings } = options;
  const registry = createMetricsRegistry(options.unit);
  const tls = tlsFilesOf(settings);
  observeCertificates({
    registry,
    logger: options.logger,
    units: tls,
    ...(options.platform ? { platformClients: platformTlsFilesOf(settings) } : {}),
  });
  const server = new ServiceServer({
    logger: options.logger,
    registry,
    tls,
    allowedCallers: options.callers,
    middleware: options.middleware,
    maxConnectionAgeMs: settings.GRPC_MAX_CONNECTION_AGE_MS,
  });
  server.addService(options.service.name, options.service.definition, options.service.handlers);
  for (const service of options.internalServices ?? []) {
    server.addService(service.name, service.definition, service.handlers, { allowedCallers: service.callers });
  }
  const grpcPort = await server.listen(settings.LISTEN_HOST, settings.GRPC_PORT);
  const platform = options.platform
    ? await startPlatformServer({ logger: options.logger, registry, settings, port: options.platform.port, services: options.platform.services })
    : undefined;
  const operations = await startOperationsServer({ port: settings.METRICS_PORT, host: settings.LISTEN_HOST, registry, ready: options.ready });
  return {
    grpcPort,
    metricsPort: operations.port,
    ...(platform ? { platformPort: platform.port } : {}),
    async stop() {
      await Promise.all([server.shutdown(SHUTDOWN_GRACE_MS), platform?.server.shutdown(SHUTDOWN_GRACE_MS)]);
      await operations.close();
    },
  };
}
