import type { RequestContext } from './request-context';

/**
 * The shape of one method in a ts-proto grpc-js service definition. The
 * serializers take `never` so that any concrete method is assignable.
 */
export interface MethodDefinitionShape {
  readonly path: string;
  readonly originalName?: string;
  readonly requestStream: boolean;
  readonly responseStream: boolean;
  readonly requestSerialize: (value: never) => Buffer;
  readonly requestDeserialize: (value: Buffer) => unknown;
  readonly responseSerialize: (value: never) => Buffer;
  readonly responseDeserialize: (value: Buffer) => unknown;
}

export type ServiceDefinitionShape = Record<string, MethodDefinitionShape>;

export type RequestOf<M> = M extends { requestDeserialize: (value: Buffer) => infer Request } ? Request : never;
export type ResponseOf<M> = M extends { responseDeserialize: (value: Buffer) => infer Response } ? Response : never;

/** A service implemented as plain async functions, one per RPC, each given the call's request context. */
export type ServiceHandlers<Definition extends ServiceDefinitionShape> = {
  [Method in keyof Definition]: (
    request: RequestOf<Definition[Method]>,
    context: RequestContext,
  ) => Promise<ResponseOf<Definition[Method]>>;
};
