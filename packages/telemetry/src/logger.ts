import { trace } from '@opentelemetry/api';
import pino, { type Logger, type LoggerOptions } from 'pino';

export type { Logger } from 'pino';

/**
 * Keys whose values are secrets wherever they appear: request bodies,
 * headers, job payloads. Logs are read by more people than the database.
 */
const sensitiveKeys: ReadonlySet<string> = new Set([
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
]);

const CENSOR = '[redacted]';

/** How deep below the logged object secrets are looked for: `key`, `a.key`, `a.b.key` and `a.b.c.key`. */
const MAX_DEPTH = 3;

/**
 * The value with every sensitive key's value replaced, copied only where
 * something changed. One walk with set lookups replaces pino's path-based
 * redaction, whose wildcard paths cost a fifth of the gateway's CPU per
 * request (docs/performance.md).
 */
function redacted(value: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH || typeof value !== 'object' || value === null) return value;
  // Errors go through the err serializer, which censors what it makes of them;
  // values with toJSON (dates, buffers) carry no keys of ours.
  if (value instanceof Error || typeof (value as { toJSON?: unknown }).toJSON === 'function') return value;
  if (Array.isArray(value)) {
    const items: readonly unknown[] = value;
    let copy: unknown[] | undefined;
    items.forEach((item, index) => {
      const next = redacted(item, depth + 1);
      if (next !== item) (copy ??= [...items])[index] = next;
    });
    return copy ?? value;
  }
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const next = sensitiveKeys.has(key) ? CENSOR : redacted(item, depth + 1);
    if (next !== item) (copy ??= { ...value })[key] = next;
  }
  return copy ?? value;
}

function redactedObject(object: Record<string, unknown>): Record<string, unknown> {
  return redacted(object, 0) as Record<string, unknown>;
}

/**
 * pino passes a child's bindings through serializers only, not through the
 * log formatter, so a sensitive key bound to a child is censored here.
 */
const censoredBindings = Object.fromEntries([...sensitiveKeys].map((key) => [key, () => CENSOR]));

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
    formatters: {
      level: (label) => ({ level: label }),
      bindings: redactedObject,
      log: redactedObject,
    },
    serializers: { ...censoredBindings, err: (error: Error) => redacted(pino.stdSerializers.err(error), 1) },
    mixin() {
      const span = trace.getActiveSpan();
      if (!span) return {};
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
  };
  return settings.destination ? pino(options, settings.destination) : pino(options);
}
