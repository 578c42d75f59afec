import { sessionsV1 } from '@latchkey/contracts';
import { createRedisClient, settledConnection } from '@latchkey/db';
import { ServiceServer, tlsFilesOf } from '@latchkey/grpc-kit';
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

  const { deps, close } = createGatewayDeps(config, logger, redis);
  const tls = tlsFilesOf(config);

  const app = await buildApp(deps);
  const url = await app.listen({ host: config.GATEWAY_HOST, port: config.GATEWAY_PORT });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.GATEWAY_PORT;
  const grpc = new ServiceServer({ logger, registry: deps.registry, tls, allowedCallers: config.SESSIONS_GRPC_ALLOWED_CALLERS });
  grpc.addService('sessions.v1.SessionsService', sessionsV1.SessionsServiceService, sessionsHandlers(deps.sessions));
  const grpcPort = await grpc.listen('0.0.0.0', config.GRPC_PORT);
  const operations = await startOperationsServer({ port: config.METRICS_PORT, registry: deps.registry, ready: deps.ready });
  return {
    readyFields: { url: url.replace('0.0.0.0', '127.0.0.1'), port, grpc_port: grpcPort, metrics_port: operations.port },
    async stop() {
      // close() stops accepting, answers 503 to new requests and waits for in-flight ones.
      await app.close();
      await grpc.shutdown(10_000);
      await operations.close();
      close();
      await redis.quit().catch(() => undefined);
    },
  };
}
