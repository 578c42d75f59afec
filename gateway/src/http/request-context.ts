import type { FastifyInstance, FastifyRequest } from 'fastify';
import { startRequestContext, type RequestContext, type StartedRequestContext } from '@latchkey/grpc-kit';
import type { Logger } from '@latchkey/telemetry';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The request's context, handed to every service call: its id, its
     * logger, the deadline GRPC_DEADLINE_MS after it arrived, and a signal
     * that aborts at that deadline or when the client hangs up.
     */
    readonly ctx: RequestContext;
    /** Unix time in milliseconds at which the request arrived. */
    receivedAt: number;
  }
}

const kStarted = Symbol('latchkey.requestContext');

type WithContextSlot = FastifyRequest & { [kStarted]: (StartedRequestContext & { release(): void }) | null };

/**
 * Adds `request.ctx`. It is built on first use, so a request that calls no
 * service (GET /v0/users/me from the session) pays nothing for it.
 */
export function decorateRequestContext(app: FastifyInstance, budgetMs: number): void {
  app.decorateRequest('receivedAt', 0);
  app.decorateRequest(kStarted, null);
  app.decorateRequest('ctx', {
    getter(this: FastifyRequest): RequestContext {
      const request = this as WithContextSlot;
      request[kStarted] ??= startFor(request, budgetMs);
      return request[kStarted].context;
    },
  });
}

function startFor(request: FastifyRequest, budgetMs: number): StartedRequestContext & { release(): void } {
  // Fastify types its request loggers by its own interface; the instance is the pino child the gateway's logger made.
  const logger = request.log as Logger;
  const started = startRequestContext({
    requestId: request.id,
    logger,
    deadline: request.receivedAt + budgetMs,
    // What an organisation's audit entries record of whoever made the change (docs/audit.md).
    client: { ip: request.ip, userAgent: request.headers['user-agent'] ?? '' },
  });
  const socket = request.raw.socket;
  // A client that hangs up before its answer needs nothing more from the services.
  const onClose = (): void => started.cancel('The client closed the connection.');
  socket.once('close', onClose);
  return {
    ...started,
    release() {
      socket.off('close', onClose);
      started.end();
    },
  };
}

/** Releases the request's context, if it had one, once the answer is sent. */
export function releaseRequestContext(request: FastifyRequest): void {
  (request as WithContextSlot)[kStarted]?.release();
}
