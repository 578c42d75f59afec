import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Public reads a shared cache may keep: posts and search show nothing that
 * depends on who asks. Every other /v0 answer may carry a secret or personal
 * data (a TOTP secret, backup codes, login tokens, the account, its
 * sessions), so no cache, browser or proxy, may store it.
 */
const publicReads = new Set(['GET /v0/posts', 'GET /v0/posts/:id', 'GET /v0/search/posts']);

export function setResponseHeaders(request: FastifyRequest, reply: FastifyReply): void {
  // Browsers must not guess a type: a problem+json body is never script or HTML.
  void reply.header('x-content-type-options', 'nosniff');
  const route = `${request.method === 'HEAD' ? 'GET' : request.method} ${request.routeOptions.url ?? ''}`;
  if (request.url.startsWith('/v0') && !publicReads.has(route)) void reply.header('cache-control', 'no-store');
}
