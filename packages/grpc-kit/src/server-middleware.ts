import type { Metadata } from '@grpc/grpc-js';
import type { RequestContext } from './request-context';

/** One incoming unary call, as server middleware sees it. */
export interface ServerCall {
  /** The full method path, `/package.Service/Method`. */
  readonly method: string;
  readonly request: unknown;
  readonly metadata: Metadata;
}

/**
 * Code that runs around every handler of a server, in the shape of
 * nice-grpc's middleware: it may look at the call, change the context it
 * hands on, measure or refuse the call. Errors it lets through reach the one
 * translation to a gRPC status (error-status.ts).
 */
export type ServerMiddleware = (
  call: ServerCall,
  context: RequestContext,
  next: (context: RequestContext) => Promise<unknown>,
) => Promise<unknown>;

/** Chains middleware around a handler; the first one listed runs outermost. */
export function composeServerMiddleware(
  middleware: readonly ServerMiddleware[],
  handler: (call: ServerCall, context: RequestContext) => Promise<unknown>,
): (call: ServerCall, context: RequestContext) => Promise<unknown> {
  return middleware.reduceRight<(call: ServerCall, context: RequestContext) => Promise<unknown>>(
    (next, layer) => (call, context) => layer(call, context, (handed) => next(call, handed)),
    handler,
  );
}
