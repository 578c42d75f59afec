import { trace } from '@opentelemetry/api';
import pino, { type Logger, type LoggerOptions } from 'pino';

export type { Logger } from 'pino';

/**
 * Keys whose values are secrets wherever they appear: request bodies,
 * headers, job payloads. Logs are read by more people than the database.
 */
const sensitiveKeys = [
  'password',
  'current_password',
  'new_password',
  'newPassword',
  'currentPassword',
  'token',
  'temp_token',
  'tempToken',
  'setup_token',
  'setupToken',
  'pending_token',
  'pendingToken',
  'backup_code',
  'backupCode',
  'backup_codes',
  'secret',
  'cookie',
  'set-cookie',
  'authorization',
  'session_id',
  'sessionId',
  'link',
  'text',
  'html',
];

function redactPaths(): string[] {
  const paths: string[] = [];
  for (const key of sensitiveKeys) {
    const segment = /^[a-z_]+$/i.test(key) ? key : `["${key}"]`;
    const dot = segment.startsWith('[') ? '' : '.';
    paths.push(segment, `*${dot}${segment}`, `*.*${dot}${segment}`);
  }
  return paths;
}

export interface LoggerSettings {
  readonly service: string;
  readonly level: string;
  /** Where to write; defaults to stdout. Tests pass a stream to read lines back. */
  readonly destination?: pino.DestinationStream;
}

/** JSON logs with the service name, trace ids of the active span and secrets redacted. */
export function createLogger(settings: LoggerSettings): Logger {
  const options: LoggerOptions = {
    level: settings.level,
    base: { service: settings.service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: redactPaths(), censor: '[redacted]' },
    mixin() {
      const span = trace.getActiveSpan();
      if (!span) return {};
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
  };
  return settings.destination ? pino(options, settings.destination) : pino(options);
}
