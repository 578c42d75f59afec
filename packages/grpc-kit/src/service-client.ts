import {
  Metadata,
  makeGenericClientConstructor,
  type CallOptions,
  type Client,
  type ClientUnaryCall,
  type ServiceDefinition,
  type ServiceError,
} from '@grpc/grpc-js';
import { fromServiceError } from './error-status';
import { metadataKeys } from './metadata-keys';
import { encodeOperator } from './operator';
import type { RequestContext } from './request-context';
import type { RequestOf, ResponseOf, ServiceDefinitionShape } from './service-definition';
import { channelCredentials, type TlsFiles } from './tls';

/**
 * A client whose methods return promises and throw AppError. Every call
 * takes the context of the request it works for: the request id (and the
 * operator, when there is one) travels in metadata, the context's deadline becomes the call's, and the call is
 * cancelled when the context aborts, so the server stops too.
 */
export type ServiceClient<Definition extends ServiceDefinitionShape> = {
  [Method in keyof Definition]: (
    request: RequestOf<Definition[Method]>,
    context: RequestContext,
  ) => Promise<ResponseOf<Definition[Method]>>;
} & { close(): void };

export interface ServiceClientOptions {
  readonly tls?: TlsFiles;
}

type UnaryCallback = (error: ServiceError | null, response: unknown) => void;
type UnaryMethod = (
  request: unknown,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: UnaryCallback,
) => ClientUnaryCall;

/**
 * One long-lived channel per target: create it once at start and share it,
 * since a channel multiplexes every call over one HTTP/2 connection.
 */
export function createServiceClient<Definition extends ServiceDefinitionShape>(
  definition: Definition,
  address: string,
  options: ServiceClientOptions = {},
): ServiceClient<Definition> {
  const Constructor = makeGenericClientConstructor(definition as unknown as ServiceDefinition, 'latchkey');
  const client: Client = new Constructor(address, channelCredentials(options.tls ?? {}), {
    'grpc.keepalive_time_ms': 30_000,
    'grpc.keepalive_timeout_ms': 10_000,
    'grpc.keepalive_permit_without_calls': 1,
  });
  const methods: Record<string, unknown> = { close: () => client.close() };
  for (const name of Object.keys(definition)) {
    const method = (client as unknown as Record<string, UnaryMethod>)[name];
    if (typeof method !== 'function') continue;
    methods[name] = (request: unknown, context: RequestContext) => callUnary(client, method, request, context);
  }
  return methods as ServiceClient<Definition>;
}

function callUnary(client: Client, method: UnaryMethod, request: unknown, context: RequestContext): Promise<unknown> {
  const { signal } = context;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise((resolve, reject) => {
    const metadata = new Metadata();
    metadata.set(metadataKeys.requestId, context.requestId);
    if (context.operator !== undefined) metadata.set(metadataKeys.operator, encodeOperator(context.operator));
    if (context.client !== undefined) {
      metadata.set(metadataKeys.clientIp, context.client.ip);
      metadata.set(metadataKeys.clientUserAgent, encodeURIComponent(context.client.userAgent));
    }
    const onAbort = (): void => call.cancel();
    const call = method.call(client, request, metadata, { deadline: context.deadline }, (error, response) => {
      signal.removeEventListener('abort', onAbort);
      if (!error) resolve(response);
      // A call cancelled by its context fails with the context's reason, which says why.
      else reject(signal.aborted ? (signal.reason as Error) : fromServiceError(error));
    });
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
