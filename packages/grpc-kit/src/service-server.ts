import { randomUUID } from 'node:crypto';
import {
  Server,
  type ServerUnaryCall,
  type ServiceDefinition,
  type UntypedServiceImplementation,
  type sendUnaryData,
  status as GrpcStatus,
} from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import type { Logger } from '@latchkey/telemetry';
import type { Registry } from 'prom-client';
import { observeCalls } from './call-observer';
import { contractErrorOf, toStatus } from './error-status';
import { metadataKeys } from './metadata-keys';
import { decodeOperator } from './operator';
import { clientOf } from './client-of-request';
import { serverDeadline } from './call-deadline';
import { startRequestContext, type RequestContext } from './request-context';
import type { ServiceDefinitionShape, ServiceHandlers } from './service-definition';
import { composeServerMiddleware, type ServerCall, type ServerMiddleware } from './server-middleware';
import { serverCredentials, type TlsFiles } from './tls';
import { allowedCallersOf, callerNamesOf, unknownMethodsOf, type CallerAllowList, type CallerIdentity } from './caller-identity';

export interface ServiceServerOptions {
  readonly logger: Logger;
  readonly registry: Registry;
  readonly tls?: TlsFiles;
  /** How callers are named from their certificates; `common-name` (the units) by default. */
  readonly callerIdentity?: CallerIdentity;
  /**
   * With TLS, who may call: a name the caller's certificate gives it (see
   * callerIdentity) must be listed, for every method or for the one called,
   * else the call is PERMISSION_DENIED before any handler runs. Over
   * plaintext there is no caller identity to check (the local stack on
   * 127.0.0.1, which production refuses).
   */
  readonly allowedCallers?: CallerAllowList;
  /** Clients reconnect after this long, so that calls spread over new replicas and new certificates are used; 5 minutes by default. */
  readonly maxConnectionAgeMs?: number;
  /** Runs inside the built-in call observer, around every handler, first listed outermost. */
  readonly middleware?: readonly ServerMiddleware[];
}

const MAX_REQUEST_ID_LENGTH = 128;
export const DEFAULT_MAX_CONNECTION_AGE_MS = 5 * 60 * 1000;

/**
 * A gRPC server with the grpc.health.v1 service and the server half of the
 * request context: each call gets the caller's request id (or a new one), a
 * logger that carries it, the caller's deadline less the time the answer
 * needs to travel back, and a signal that aborts when the caller cancels or
 * that deadline passes. Services register plain async handlers.
 */
export class ServiceServer {
  private readonly server: Server;
  private readonly health = new HealthImplementation({ '': 'NOT_SERVING' });
  private readonly serviceNames: string[] = [];
  private readonly middleware: readonly ServerMiddleware[];

  constructor(private readonly options: ServiceServerOptions) {
    this.server = new Server({
      'grpc.max_receive_message_length': 8 * 1024 * 1024,
      // Clients reconnect now and then (a GOAWAY, no failed call), so that calls spread over
      // replicas added by scaling, and every connection is soon one made with the certificates on disk now.
      'grpc.max_connection_age_ms': options.maxConnectionAgeMs ?? DEFAULT_MAX_CONNECTION_AGE_MS,
      'grpc.max_connection_age_grace_ms': 30 * 1000,
    });
    this.health.addToServer(this.server);
    this.middleware = [observeCalls(options.registry), ...(options.middleware ?? [])];
  }

  /**
   * Registers a service; `name` is its fully qualified proto name, used by
   * health checks. `allowedCallers` replaces the server's for this service.
   * A per-RPC list naming an RPC the service does not have is refused here,
   * at start, rather than silently allowing nobody.
   */
  addService<Definition extends ServiceDefinitionShape>(
    name: string,
    definition: Definition,
    handlers: ServiceHandlers<Definition>,
    options: { readonly allowedCallers?: CallerAllowList } = {},
  ): void {
    const implementation: UntypedServiceImplementation = {};
    const allowedCallers = options.allowedCallers ?? this.options.allowedCallers;
    const unknown = unknownMethodsOf(allowedCallers, definition);
    if (unknown.length > 0) throw new Error(`the callers allowed for ${name} name RPCs it does not have: ${unknown.join(', ')}`);
    for (const method of Object.keys(definition) as (keyof Definition & string)[]) {
      const handler = handlers[method] as (request: unknown, context: RequestContext) => Promise<unknown>;
      implementation[method] = this.wrapUnary(
        composeServerMiddleware(this.middleware, (call, context) => handler(call.request, context)),
        definition[method]?.path ?? method,
        allowedCallers,
      );
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

  /**
   * The caller's name, and why it may not call (undefined when it may). A
   * certificate the CA bundle does not trust never gets this far: the TLS
   * handshake refuses it.
   */
  private checkCaller(
    names: readonly string[],
    allowedCallers: CallerAllowList | undefined,
    rpcName: string,
  ): { caller: string | undefined; refusal: string | undefined } {
    if (allowedCallers === undefined || this.options.tls?.certFile === undefined) return { caller: names[0], refusal: undefined };
    const allowed = allowedCallersOf(allowedCallers, rpcName);
    const caller = names.find((name) => allowed.includes(name));
    if (caller !== undefined) return { caller, refusal: undefined };
    const given = names.length <= 1 ? JSON.stringify(names[0] ?? null) : JSON.stringify(names);
    return { caller: names[0], refusal: `caller ${given} is not one of ${allowed.join(', ') || '(none)'}` };
  }

  private wrapUnary(
    run: (call: ServerCall, context: RequestContext) => Promise<unknown>,
    method: string,
    allowedCallers: CallerAllowList | undefined,
  ) {
    const baseLogger = this.options.logger;
    const identity = this.options.callerIdentity ?? 'common-name';
    const rpcName = method.slice(method.lastIndexOf('/') + 1);
    return (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>): void => {
      const names = callerNamesOf(call.getAuthContext()?.sslPeerCertificate, identity);
      const { caller, refusal } = this.checkCaller(names, allowedCallers, rpcName);
      if (refusal !== undefined) {
        // A bare status, no API error code: to the caller this is a deployment fault, not an answer to relay.
        baseLogger.warn({ rpc: method, reason: refusal }, 'call refused: caller not allowed');
        callback({ code: GrpcStatus.PERMISSION_DENIED, details: 'This unit may not call this service.' });
        return;
      }
      const given = call.metadata.get(metadataKeys.requestId)[0];
      const requestId =
        typeof given === 'string' && given.length > 0 && given.length <= MAX_REQUEST_ID_LENGTH ? given : randomUUID();
      const operator = call.metadata.get(metadataKeys.operator)[0];
      const started = startRequestContext({
        requestId,
        logger: baseLogger.child({ request_id: requestId, rpc: method }),
        deadline: serverDeadline(call.getDeadline(), Date.now()),
        caller,
        operator: typeof operator === 'string' ? decodeOperator(operator) : undefined,
        client: clientOf(call.metadata),
      });
      const onCancelled = (): void => started.cancel('The caller cancelled the call or its deadline passed.');
      call.once('cancelled', onCancelled);
      run({ method, request: call.request, metadata: call.metadata }, started.context)
        .then(
          (response) => callback(null, response),
          (error: unknown) => callback(toStatus(contractErrorOf(error))),
        )
        .finally(() => {
          call.removeListener('cancelled', onCancelled);
          started.end();
        });
    };
  }
}
