import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

/**
 * Probes, outside /v0 and outside the OpenAPI document. `/metrics` is not
 * here: it is served on METRICS_PORT with the probes (gateway-server.ts),
 * which only the scraper reaches, like every unit's.
 */
export function operationsRoutes(deps: {
  /** Whether the gateway takes traffic (not its dependencies: see GatewayDeps). */
  readonly ready: () => boolean;
}): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

    app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
      const ready = deps.ready();
      return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'unavailable' });
    });
  };
}
