export { createLogger, type Logger, type LoggerSettings } from './logger';
export { startTracing, type Tracing, type TracingSettings } from './tracing';
export { injectTraceContext, withExtractedTraceContext } from './trace-context';
export { createMetricsRegistry, startOperationsServer, type OperationsServer } from './metrics-server';
