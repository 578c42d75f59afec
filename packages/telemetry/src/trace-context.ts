import { context, propagation } from '@opentelemetry/api';

/**
 * W3C trace context for carriers that no instrumentation covers (NATS
 * headers, outbox rows). A no-op when tracing is off.
 */
export function injectTraceContext(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

export function withExtractedTraceContext<T>(carrier: Record<string, string>, fn: () => T): T {
  return context.with(propagation.extract(context.active(), carrier), fn);
}
