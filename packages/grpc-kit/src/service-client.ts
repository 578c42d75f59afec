import {
  Metadata,
  makeGenericClientConstructor,
  type CallOptions,
  type Client,
  type ServiceDefinition,
  type ServiceError,
} from '@grpc/grpc-js';
import { fromServiceError } from './error-status';
import { metadataKeys } from './metadata-keys';
import type { RequestOf, ResponseOf, ServiceDefinitionShape } from './service-definition';
import { channelCredentials, type TlsFiles } from './tls';

/** Per-call settings a caller passes along. */
export interface CallSettings {
  /** Propagated so that one request can be followed across units. */
  readonly requestId?: string;
  /** Overrides the client's default deadline. */
  readonly deadlineMs?: number;
}

/** A client whose methods return promises and throw AppError. */
export type ServiceClient<Definition extends ServiceDefinitionShape> = {
  [Method in keyof Definition]: (
    request: RequestOf<Definition[Method]>,
    settings?: CallSettings,
  ) => Promise<ResponseOf<Definition[Method]>>;
} & { close(): void };

export interface ServiceClientOptions {
  /** Default deadline of every call, so that no call waits forever. */
  readonly deadlineMs: number;
  readonly tls?: TlsFiles;
}

type UnaryCallback = (error: ServiceError | null, response: unknown) => void;
type UnaryMethod = (request: unknown, metadata: Metadata, options: Partial<CallOptions>, callback: UnaryCallback) => void;

/**
 * One long-lived channel per target: create it once at start and share it,
 * since a channel multiplexes every call over one HTTP/2 connection.
 */
export function createServiceClient<Definition extends ServiceDefinitionShape>(
  definition: Definition,
  address: string,
  options: ServiceClientOptions,
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
    methods[name] = (request: unknown, settings: CallSettings = {}) =>
      new Promise((resolve, reject) => {
        const metadata = new Metadata();
        if (settings.requestId) metadata.set(metadataKeys.requestId, settings.requestId);
        const deadline = Date.now() + (settings.deadlineMs ?? options.deadlineMs);
        method.call(client, request, metadata, { deadline }, (error, response) => {
          if (error) reject(fromServiceError(error));
          else resolve(response);
        });
      });
  }
  return methods as ServiceClient<Definition>;
}
