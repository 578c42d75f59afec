import type { FastifyInstance } from 'fastify';
import type { OpenIdProvider } from './openid-provider';
import { attachRequestContext } from './provider-context';

/**
 * Whether a path is the provider's: its discovery document and its
 * endpoints under /oidc, but the web app's interaction page. The device
 * flow's `/device` is the web app's page, and the provider's own device
 * pages are not served: the web app takes user codes.
 */
export function isProviderPath(url: string): boolean {
  const path = url.split('?', 1)[0] ?? '';
  if (path === '/.well-known/openid-configuration') return true;
  return path.startsWith('/oidc/') && !path.startsWith('/oidc/interaction/');
}

/**
 * Hands the provider's paths to oidc-provider before Fastify reads their
 * bodies: the provider parses its own forms and answers OAuth errors, not
 * problem+json (docs/oidc.md, "Errors"). First the gateway's limits on
 * what an unauthenticated caller may make it do (provider-request-limits.ts).
 * The request keeps its id and its context (deadline, logger), which the
 * provider's storage calls carry.
 */
export function mountProvider(app: FastifyInstance, openId: OpenIdProvider): void {
  const issuer = new URL(openId.issuer);
  app.addHook('onRequest', async (request, reply) => {
    if (!isProviderPath(request.url)) return;
    if (await openId.requestLimits.refused(request, reply, request.url.split('?', 1)[0]!)) return reply;
    attachRequestContext(request.raw, request.ctx);
    // Every URL the provider writes (discovery, redirects, cookies' Secure) is its issuer's, whatever host or
    // scheme the request reached the gateway with behind an Ingress: it reads them from these headers only.
    const headers = request.raw.headers;
    headers.host = issuer.host;
    headers['x-forwarded-host'] = issuer.host;
    headers['x-forwarded-proto'] = issuer.protocol.replace(/:$/, '');
    // What Fastify would have sent, had it answered (the provider adds its own security headers: provider-pages.ts).
    reply.raw.setHeader('x-request-id', request.id);
    // Fastify's onResponse hooks still run for a hijacked reply: they log the request and release its context.
    reply.hijack();
    openId.handle(request.raw, reply.raw);
  });
}
