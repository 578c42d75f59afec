import type { FastifyInstance } from 'fastify';
import { AppError } from '@latchkey/errors';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * Records the methods of every route, so that a known path with a wrong
 * method answers 405 with `Allow` instead of Fastify's 404 (docs/api.md, "Paths and bodies").
 * Call before registering routes; call the returned function after.
 */
export function trackRouteMethods(app: FastifyInstance): () => void {
  const methodsByUrl = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    if (route.url === undefined || route.url === '*' || route.url.includes('*')) return;
    const methods = methodsByUrl.get(route.url) ?? new Set<string>();
    for (const method of [route.method].flat()) methods.add(method);
    methodsByUrl.set(route.url, methods);
  });
  return () => {
    for (const [url, methods] of [...methodsByUrl]) {
      const missing = METHODS.filter((method) => !methods.has(method));
      if (missing.length === 0) continue;
      const allow = [...methods].sort().join(', ');
      app.route({
        method: missing,
        url,
        schema: { hide: true },
        handler: async (_request, reply) => {
          void reply.header('allow', allow);
          throw new AppError('route:method_not_allowed');
        },
      });
    }
  };
}
