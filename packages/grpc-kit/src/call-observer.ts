import { status as GrpcStatus } from '@grpc/grpc-js';
import { describeError, type AppError } from '@latchkey/errors';
import { Counter, Histogram, type Registry } from 'prom-client';
import { contractErrorOf } from './error-status';
import type { ServerMiddleware } from './server-middleware';

/** `/identity.v1.IdentityService/GetUser` → its service and method; every RPC of the units is unary. */
export function methodLabelsOf(path: string): { grpc_service: string; grpc_method: string; grpc_type: 'unary' } {
  const [service = '', method = path] = path.replace(/^\//, '').split('/');
  return { grpc_service: service, grpc_method: method, grpc_type: 'unary' };
}

/**
 * Server middleware that counts and times every call and logs it with the
 * request id the context carries: failures always (`rpc failed`, or `rpc
 * aborted` when the caller gave up or the deadline passed first, which is
 * how an operator sees work that was stopped rather than finished), answered
 * calls at debug level (`rpc completed`).
 */
export function observeCalls(registry: Registry): ServerMiddleware {
  // The labels of grpc-ecosystem's go-grpc-prometheus, which dashboards and alerts for gRPC servers expect.
  // A unit with a platform listener runs two servers on one registry: they count into the same metrics.
  const handled =
    (registry.getSingleMetric('grpc_server_handled_total') as Counter<'grpc_service' | 'grpc_method' | 'grpc_type' | 'grpc_code'> | undefined) ??
    new Counter({
      name: 'grpc_server_handled_total',
      help: 'RPCs completed on the server, by service, method and status code.',
      labelNames: ['grpc_service', 'grpc_method', 'grpc_type', 'grpc_code'],
      registers: [registry],
    });
  const handling =
    (registry.getSingleMetric('grpc_server_handling_seconds') as Histogram<'grpc_service' | 'grpc_method' | 'grpc_type'> | undefined) ??
    new Histogram({
      name: 'grpc_server_handling_seconds',
      help: 'Time to handle an RPC, by service and method.',
      labelNames: ['grpc_service', 'grpc_method', 'grpc_type'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    });
  return async (call, context, next) => {
    const started = process.hrtime.bigint();
    const labels = methodLabelsOf(call.method);
    const finish = (code: GrpcStatus, failure?: { contractError: AppError; cause: unknown }): void => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      handled.inc({ ...labels, grpc_code: GrpcStatus[code] });
      handling.observe(labels, seconds);
      const line: Record<string, unknown> = { code: GrpcStatus[code], ms: Math.round(seconds * 1000) };
      if (failure) line.error_code = failure.contractError.code;
      // Contract errors are answers; only the unexpected and the outages carry their cause into the log.
      const cause = failure?.contractError === failure?.cause ? failure?.contractError.cause : failure?.cause;
      if (failure?.contractError.code === 'service:unavailable' || failure?.contractError.code === 'internal:error') {
        if (cause !== undefined) line.err = cause;
      }
      if (failure?.contractError.code === 'internal:error') context.logger.error(line, 'rpc failed');
      else if (context.signal.aborted) context.logger.warn({ ...line, aborted: true }, 'rpc aborted');
      else if (failure?.contractError.code === 'service:unavailable') context.logger.warn(line, 'rpc failed');
      // Answered calls are the bulk: at info they would cost every unit a log line per call.
      else context.logger.debug(line, 'rpc completed');
    };
    try {
      const response = await next(context);
      finish(GrpcStatus.OK);
      return response;
    } catch (error) {
      const contractError = contractErrorOf(error);
      finish(describeError(contractError.code).grpcStatus, { contractError, cause: error });
      throw contractError;
    }
  };
}
