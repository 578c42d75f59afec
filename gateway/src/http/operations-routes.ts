import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

/**
 * Probes, outside /v0 and outside the OpenAPI document. `/metrics` is not
 * here: it is served on METRICS_PORT with the probes (gateway-server.ts),
 * which only the scraper reaches, like every unit's.
 */
export function operationsRoutes(deps: {
  /** Whether Redis and every service answer. */
  readonly ready: () => Promise<boolean>;
}): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

    app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
      const ready = await deps.ready().catch(() => false);
      return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'unavailable' });
    });
  };
}
