import { randomUUID } from 'node:crypto';
import { AppError } from '@latchkey/errors';
import type { Logger } from '@latchkey/telemetry';

/**
 * What every unit knows about the request it is working for, from the HTTP
 * request that started it to the last gRPC call or job it caused. It is
 * passed by hand, as the one context parameter of handlers and domain
 * functions, so that no call can lose it.
 */
export interface RequestContext {
  /** Follows one request across units: logs, gRPC metadata, outbox and NATS headers. */
  readonly requestId: string;
  /** A child logger that carries the request id. */
  readonly logger: Logger;
  /** Unix time in milliseconds after which the caller no longer waits for an answer. */
  readonly deadline: number;
  /**
   * Aborts at the deadline or when the caller gives up. Its reason is a
   * `service:unavailable` AppError, so work that stops on it answers 503.
   */
  readonly signal: AbortSignal;
  /**
   * On a gRPC server over mutual TLS: the Subject CN of the caller's
   * certificate, the unit or service that called (docs/operations.md,
   * "Mutual TLS"). Undefined over plaintext.
   */
  readonly caller?: string | undefined;
  /**
   * The person the request is made for, when a tool acts for one (the
   * `latchkey-operator` metadata, operator.ts): set by `latchkey-admin` on
   * its calls, and on a server to what the caller sent. Audit entries name
   * them; other units only hand it on.
   */
  readonly operator?: string | undefined;
  /**
   * The end user's client as the gateway saw it (its address and
   * User-Agent): set by the gateway on the requests it serves, handed on by
   * every unit, and written into organisations' audit entries
   * (docs/audit.md). Undefined for work no end user asked for.
   */
  readonly client?: ClientOfRequest | undefined;
}

/** Who sent an end user's request: what an audit entry records of them. */
export interface ClientOfRequest {
  readonly ip: string;
  readonly userAgent: string;
}

/** A started context and the function that releases its timer once the work is answered. */
export interface StartedRequestContext {
  readonly context: RequestContext;
  end(): void;
}

/**
 * Starts the context of one request. `cancelled` links a signal of the
 * transport (an HTTP client that hung up, a gRPC caller that cancelled), so
 * that the work stops with it.
 */
export function startRequestContext(options: {
  readonly requestId: string;
  readonly logger: Logger;
  readonly deadline: number;
  readonly caller?: string | undefined;
  readonly operator?: string | undefined;
  readonly client?: ClientOfRequest | undefined;
}): StartedRequestContext & { cancel(why: string): void } {
  const controller = new AbortController();
  let ended = false;
  // Transports report the end of every call as a close, answered or not: after end() it means nothing.
  const cancel = (why: string): void => {
    if (!ended && !controller.signal.aborted) controller.abort(new AppError('service:unavailable', why));
  };
  const timer = setTimeout(() => cancel('The request ran out of time.'), Math.max(0, options.deadline - Date.now()));
  timer.unref();
  return {
    context: {
      requestId: options.requestId,
      logger: options.logger,
      deadline: options.deadline,
      signal: controller.signal,
      ...(options.caller === undefined ? {} : { caller: options.caller }),
      ...(options.operator === undefined ? {} : { operator: options.operator }),
      ...(options.client === undefined ? {} : { client: options.client }),
    },
    cancel,
    end: () => {
      ended = true;
      clearTimeout(timer);
    },
  };
}

/**
 * Runs work a unit starts on its own (a sweep, a scheduled batch,
 * a store call outside any request) under a context of its own: a new
 * request id on its log lines and on the calls it makes, and `budgetMs` to
 * finish.
 */
export async function withOwnRequestContext<T>(logger: Logger, budgetMs: number, work: (context: RequestContext) => Promise<T>): Promise<T> {
  const requestId = randomUUID();
  const started = startRequestContext({ requestId, logger: logger.child({ request_id: requestId }), deadline: Date.now() + budgetMs });
  try {
    return await work(started.context);
  } finally {
    started.end();
  }
}

/** Milliseconds left before the context's deadline, never negative. */
export function remainingMs(context: Pick<RequestContext, 'deadline'>, now: number = Date.now()): number {
  return Math.max(0, context.deadline - now);
}
