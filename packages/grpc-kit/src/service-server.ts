import { randomUUID } from 'node:crypto';
import {
  Server,
  status as GrpcStatus,
  type ServerUnaryCall,
  type ServiceDefinition,
  type UntypedServiceImplementation,
  type sendUnaryData,
} from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import type { Logger } from '@latchkey/telemetry';
import { Counter, Histogram, type Registry } from 'prom-client';
import { toStatus } from './error-status';
import { metadataKeys } from './metadata-keys';
import type { ServiceDefinitionShape, ServiceHandlers } from './service-definition';
import { serverCredentials, type TlsFiles } from './tls';

export interface ServiceServerOptions {
  readonly logger: Logger;
  readonly registry: Registry;
  readonly tls?: TlsFiles;
}

/**
 * A gRPC server with the grpc.health.v1 service, request ids, metrics and
 * the one error translation. Services register plain async handlers.
 */
export class ServiceServer {
  private readonly server = new Server({
    'grpc.max_receive_message_length': 8 * 1024 * 1024,
    // Clients reconnect now and then, so that calls spread over replicas added by scaling.
    'grpc.max_connection_age_ms': 5 * 60 * 1000,
    'grpc.max_connection_age_grace_ms': 30 * 1000,
  });
  private readonly health = new HealthImplementation({ '': 'NOT_SERVING' });
  private readonly serviceNames: string[] = [];
  private readonly handled: Counter<'grpc_method' | 'grpc_code'>;
  private readonly handling: Histogram<'grpc_method'>;

  constructor(private readonly options: ServiceServerOptions) {
    this.health.addToServer(this.server);
    this.handled = new Counter({
      name: 'grpc_server_handled_total',
      help: 'RPCs completed on the server, by method and status code.',
      labelNames: ['grpc_method', 'grpc_code'],
      registers: [options.registry],
    });
    this.handling = new Histogram({
      name: 'grpc_server_handling_seconds',
      help: 'Time to handle an RPC, by method.',
      labelNames: ['grpc_method'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [options.registry],
    });
  }

  /** Registers a service; `name` is its fully qualified proto name, used by health checks. */
  addService<Definition extends ServiceDefinitionShape>(
    name: string,
    definition: Definition,
    handlers: ServiceHandlers<Definition>,
  ): void {
    const implementation: UntypedServiceImplementation = {};
    for (const method of Object.keys(definition) as (keyof Definition & string)[]) {
      implementation[method] = this.wrapUnary(definition[method]?.path ?? method, handlers[method]);
    }
    this.server.addService(definition as unknown as ServiceDefinition, implementation);
    this.serviceNames.push(name);
  }

  /** Binds and starts serving; answers the bound port (useful with port 0). */
  async listen(host: string, port: number): Promise<number> {
    const bound = await new Promise<number>((resolve, reject) => {
      this.server.bindAsync(`${host}:${port}`, serverCredentials(this.options.tls ?? {}), (error, actual) =>
        error ? reject(error) : resolve(actual),
      );
    });
    for (const name of ['', ...this.serviceNames]) this.health.setStatus(name, 'SERVING');
    return bound;
  }

  /**
   * Reports NOT_SERVING so that balancers stop sending, lets in-flight calls
   * finish for up to `graceMs`, then cuts what is left.
   */
  async shutdown(graceMs: number): Promise<void> {
    for (const name of ['', ...this.serviceNames]) this.health.setStatus(name, 'NOT_SERVING');
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, graceMs);
      this.server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private wrapUnary(
    path: string,
    handler: (request: never, context: Parameters<ServiceHandlers<ServiceDefinitionShape>[string]>[1]) => Promise<unknown>,
  ) {
    const baseLogger = this.options.logger;
    return (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>): void => {
      const started = process.hrtime.bigint();
      const given = call.metadata.get(metadataKeys.requestId)[0];
      const requestId = typeof given === 'string' && given.length > 0 && given.length <= 128 ? given : randomUUID();
      const logger = baseLogger.child({ request_id: requestId, rpc: path });
      const finish = (code: GrpcStatus): void => {
        this.handled.inc({ grpc_method: path, grpc_code: GrpcStatus[code] });
        this.handling.observe({ grpc_method: path }, Number(process.hrtime.bigint() - started) / 1e9);
      };
      handler(call.request as never, { requestId, logger, metadata: call.metadata }).then(
        (response) => {
          finish(GrpcStatus.OK);
          callback(null, response);
        },
        (error: unknown) => {
          const statusObject = toStatus(error, logger);
          finish(statusObject.code ?? GrpcStatus.UNKNOWN);
          callback(statusObject);
        },
      );
    };
  }
}
