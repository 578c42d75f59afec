import { sessionsV1 } from '@latchkey/contracts';
import { createRedisClient, settledConnection } from '@latchkey/db';
import { observeCertificates, platformTlsFilesOf, startPlatformServer, tlsFilesOf } from '@latchkey/grpc-kit';
import type { Running } from '@latchkey/runtime';
import { startOperationsServer, type Logger } from '@latchkey/telemetry';
import { buildApp } from './app';
import type { GatewayConfig } from './config';
import { createGatewayDeps } from './gateway-wiring';
import { sessionsHandlers } from './sessions/sessions-service';

/** Connects Redis and the service channels once, builds the app and listens. */
export async function startGateway(config: GatewayConfig, logger: Logger): Promise<Running> {
  // Fail fast while Redis is away or hung, so that requests answer 503 instead of waiting.
  const redis = createRedisClient(config, { connectionName: 'latchkey-gateway', logger, failFast: true });
  await settledConnection(redis, 3_000);

  const { deps, drain, close } = createGatewayDeps(config, logger, redis);
  observeCertificates({ registry: deps.registry, logger, units: tlsFilesOf(config), platformClients: platformTlsFilesOf(config) });

  const app = await buildApp(deps);
  const url = await app.listen({ host: config.GATEWAY_HOST, port: config.GATEWAY_PORT });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.GATEWAY_PORT;
  // sessions.v1 on its own listener, for the platform's clients: certificates of their CA, named by a SAN.
  const grpc = await startPlatformServer({
    logger,
    registry: deps.registry,
    settings: config,
    port: config.GRPC_PORT,
    services: [
      {
        name: 'sessions.v1.SessionsService',
        definition: sessionsV1.SessionsServiceService,
        handlers: sessionsHandlers(deps.sessions, deps.orgs),
        callers: config.SESSIONS_GRPC_ALLOWED_CALLERS,
      },
    ],
  });
  const operations = await startOperationsServer({
    port: config.METRICS_PORT,
    host: config.LISTEN_HOST,
    registry: deps.registry,
    ready: async () => deps.ready(),
    dependencies: () => deps.dependencies.status(),
  });
  return {
    readyFields: { url: url.replace('0.0.0.0', '127.0.0.1'), port, grpc_port: grpc.port, metrics_port: operations.port },
    async stop() {
      drain();
      // close() stops accepting, answers 503 to new requests and waits for in-flight ones.
      await app.close();
      await grpc.server.shutdown(10_000);
      await operations.close();
      close();
      await redis.quit().catch(() => undefined);
    },
  };
}
