import type { FastifyInstance, FastifyReply, onRequestAsyncHookHandler } from 'fastify';

/**
 * Public reads a shared cache may keep: posts and search show nothing that
 * depends on who asks. Every other /v0 answer may carry a secret or personal
 * data (a TOTP secret, backup codes, login tokens, the account, its
 * sessions), so no cache, browser or proxy, may store it.
 */
const publicReads = new Set(['/v0/posts', '/v0/posts/:id', '/v0/search/posts']);

function isPublicRead(method: string | readonly string[], url: string): boolean {
  const methods = typeof method === 'string' ? [method] : method;
  return publicReads.has(url) && methods.every((one) => one === 'GET' || one === 'HEAD');
}

/** Browsers must not guess a type: a problem+json body is never script or HTML. */
export function forbidSniffing(reply: FastifyReply): void {
  void reply.header('x-content-type-options', 'nosniff');
}

export function forbidStoring(reply: FastifyReply): void {
  void reply.header('cache-control', 'no-store');
}

const noStore: onRequestAsyncHookHandler = async (_request, reply) => forbidStoring(reply);

/**
 * Gives every /v0 route but the public reads a hook that forbids storing
 * its answers. Decided once per route as it is added, so that a request
 * pays no lookup; register before the routes.
 */
export function forbidStoringPrivateRoutes(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/v0') || isPublicRead(route.method, route.url)) return;
    const existing = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    // First, so that an answer from a later hook (a 401 from the session guard) carries it too.
    route.onRequest = [noStore, ...existing];
  });
}
