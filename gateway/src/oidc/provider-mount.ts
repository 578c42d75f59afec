import type { FastifyInstance } from 'fastify';
import type { OpenIdProvider } from './openid-provider';
import { attachRequestContext } from './provider-context';

/** The device flow's resume path, below the web app's /device page. */
const DEVICE_RESUME = /^\/device\/[A-Za-z0-9_-]+$/;

/**
 * Whether a path is the provider's: its discovery document, its endpoints
 * under /oidc (but the web app's interaction page), the device flow's
 * resume path.
 */
export function isProviderPath(url: string): boolean {
  const path = url.split('?', 1)[0] ?? '';
  if (path === '/.well-known/openid-configuration') return true;
  if (path.startsWith('/oidc/')) return !path.startsWith('/oidc/interaction/');
  return DEVICE_RESUME.test(path);
}

/**
 * Hands the provider's paths to oidc-provider before Fastify reads their
 * bodies: the provider parses its own forms and answers OAuth errors, not
 * problem+json (docs/oidc.md, "Errors"). The request keeps its id and its
 * context (deadline, logger), which the provider's storage calls carry.
 */
export function mountProvider(app: FastifyInstance, openId: OpenIdProvider): void {
  const issuer = new URL(openId.issuer);
  app.addHook('onRequest', async (request, reply) => {
    if (!isProviderPath(request.url)) return;
    attachRequestContext(request.raw, request.ctx);
    // Every URL the provider writes (discovery, redirects, cookies' Secure) is its issuer's, whatever host or
    // scheme the request reached the gateway with behind an Ingress: it reads them from these headers only.
    const headers = request.raw.headers;
    headers.host = issuer.host;
    headers['x-forwarded-host'] = issuer.host;
    headers['x-forwarded-proto'] = issuer.protocol.replace(/:$/, '');
    // Fastify's onResponse hooks still run for a hijacked reply: they log the request and release its context.
    reply.hijack();
    openId.handle(request.raw, reply.raw);
  });
}
