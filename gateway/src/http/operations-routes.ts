import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Registry } from 'prom-client';

/** Probes and metrics, outside /v0 and outside the OpenAPI document. */
export function operationsRoutes(deps: {
  readonly registry: Registry;
  /** Whether Redis and every service answer. */
  readonly ready: () => Promise<boolean>;
}): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

    app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
      const ready = await deps.ready().catch(() => false);
      return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'unavailable' });
    });

    app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
      return reply.type(deps.registry.contentType).send(await deps.registry.metrics());
    });
  };
}
