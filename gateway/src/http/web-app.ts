import { existsSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Where `pnpm build` puts the web app (gateway/web, built by Vite). */
export const WEB_APP_DIR = path.resolve(__dirname, '../../web/dist');

/** Paths that belong to the API and operations, with everything below them, never to the app, even for a browser. */
const API_PATHS = ['/v0', '/.well-known', '/healthz', '/readyz', '/metrics'];

/**
 * The app's pages load only its own files: no inline script or style, no
 * third-party request a token in the address bar could leak to, no framing.
 * `img-src data:` is the TOTP QR code the API answers as a data URI.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The headers of the app's HTML: it loads only its own files, and sends its address nowhere. */
function setPageHeaders(reply: FastifyReply): void {
  void reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
  // Mailed links carry tokens in the query: no page of the app sends its address anywhere.
  void reply.header('referrer-policy', 'no-referrer');
  void reply.header('x-frame-options', 'DENY');
  void reply.header('cross-origin-opener-policy', 'same-origin');
  // A new release must reach the browser at once; the assets it names are immutable.
  void reply.header('cache-control', 'no-cache');
}

/** Whether a request is a browser asking for a page of the app (a path the API does not own). */
export function wantsAppPage(request: FastifyRequest): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const pathname = request.url.split('?')[0] ?? '';
  if (API_PATHS.some((owned) => pathname === owned || pathname.startsWith(`${owned}/`))) return false;
  return (request.headers.accept ?? '').includes('text/html');
}

/**
 * Serves the built app: its hashed assets (cached for a year; their names
 * change with their content) by exact path, and `index.html` for every
 * other page a browser asks for, so that `/verify-email?token=...` and the
 * other mailed links open the app, which routes on the client. Answers
 * whether the app is there to serve.
 */
export async function registerWebApp(app: FastifyInstance, directory = WEB_APP_DIR): Promise<boolean> {
  if (!existsSync(path.join(directory, 'index.html'))) return false;
  await app.register(fastifyStatic, {
    root: directory,
    // Files are found once, at start; no wildcard route to shadow the API's 404s.
    wildcard: false,
    index: false,
    serve: true,
    // sendFile('index.html') asks with the name alone.
    allowedPath: (pathname) => pathname.startsWith('/assets/') || pathname.replace(/^\//, '') === 'index.html',
    setHeaders: (response, filePath) => {
      if (filePath.endsWith('.html')) setPageHeaders(response);
      else void response.header('cache-control', 'public, max-age=31536000, immutable');
    },
  });
  return true;
}

/** The app's shell, for every page a browser asks for; it never changes what the API answers. */
export async function sendAppPage(reply: FastifyReply): Promise<void> {
  await reply.code(200).sendFile('index.html');
}
