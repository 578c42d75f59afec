import { getNodeAutoInstrumentations } from './instrumentations';

export interface TracingSettings {
  readonly service: string;
  /** OTLP/HTTP collector; tracing stays off when it is unset. */
  readonly endpoint: string | undefined;
}

export interface Tracing {
  shutdown(): Promise<void>;
}

const SHUTDOWN_GRACE_MS = 2_000;

const off: Tracing = { shutdown: () => Promise.resolve() };

/**
 * Starts OpenTelemetry before the instrumented modules (http, gRPC, pg,
 * ioredis) are loaded, so call it first in main and import the server after.
 */
export async function startTracing(settings: TracingSettings): Promise<Tracing> {
  if (!settings.endpoint) return off;
  const [{ NodeSDK }, { OTLPTraceExporter }, { resourceFromAttributes }, { ATTR_SERVICE_NAME }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/semantic-conventions'),
  ]);
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.service }),
    traceExporter: new OTLPTraceExporter({ url: `${settings.endpoint.replace(/\/$/, '')}/v1/traces` }),
    instrumentations: await getNodeAutoInstrumentations(),
  });
  sdk.start();
  return {
    // An unreachable collector must not turn a clean stop into a failure or a long wait.
    shutdown: () =>
      Promise.race([
        sdk.shutdown().catch(() => undefined),
        new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref()),
      ]),
  };
}
