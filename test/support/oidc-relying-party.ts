import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as client from 'openid-client';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { ApiClient, type ApiResponse } from './api-client';

/** The provider's issuer in the end-to-end stacks: PUBLIC_APP_URL, which the test code resolves to the gateway. */
export const ISSUER = 'http://app.localhost';

/** Rewrites a URL of the issuer's origin to the gateway's, as a browser with the app's host mapped to it would. */
export function onGateway(url: string | URL, gatewayUrl: string): string {
  const target = new URL(url);
  if (target.origin !== ISSUER) return target.toString();
  const gateway = new URL(gatewayUrl);
  target.protocol = gateway.protocol;
  target.host = gateway.host;
  return target.toString();
}

/**
 * A relying party on openid-client 6: discovery of the stack's issuer, and
 * every request it makes sent to the gateway (plain HTTP is allowed, as
 * for any local client).
 */
/** A private key openid-client signs client assertions with (a WebCrypto key). */
export type ClientPrivateKey = Parameters<typeof client.PrivateKeyJwt>[0];

export async function relyingParty(gatewayUrl: string, clientId: string, auth: { secret?: string; privateKey?: ClientPrivateKey } = {}) {
  const authentication = auth.secret
    ? client.ClientSecretBasic(auth.secret)
    : auth.privateKey
      ? client.PrivateKeyJwt(auth.privateKey)
      : client.None();
  const fetchThroughGateway: client.CustomFetch = (url, options) => fetch(onGateway(url, gatewayUrl), options);
  const config = await client.discovery(new URL(ISSUER), clientId, undefined, authentication, {
    execute: [client.allowInsecureRequests],
    [client.customFetch]: fetchThroughGateway,
  });
  config[client.customFetch] = fetchThroughGateway;
  return config;
}

/** What a test relying party's back-channel logout endpoint received. */
export interface ReceivedLogout {
  readonly path: string;
  readonly token: string;
  readonly receivedAt: number;
}

/**
 * A relying party's back-channel logout endpoint (OpenID Connect
 * Back-Channel Logout 1.0) as a real local HTTP server: it records each
 * logout token; paths under /down/ answer 500, as a client that is down.
 */
export async function startBackchannelReceiver(): Promise<{
  readonly url: string;
  readonly received: ReceivedLogout[];
  readonly failedAttempts: () => number;
  stop(): Promise<void>;
}> {
  const received: ReceivedLogout[] = [];
  let failed = 0;
  const server: Server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      if (path.startsWith('/down/')) {
        failed += 1;
        response.writeHead(500).end();
        return;
      }
      const token = new URLSearchParams(body).get('logout_token');
      if (request.method !== 'POST' || !/application\/x-www-form-urlencoded/.test(request.headers['content-type'] ?? '') || !token) {
        response.writeHead(400).end();
        return;
      }
      received.push({ path, token, receivedAt: Date.now() });
      response.writeHead(200, { 'cache-control': 'no-store' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    failedAttempts: () => failed,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * A relying party's redirect URI as a real local HTTP server: the browser
 * lands there with the code; `next()` answers the URL it landed on.
 */
export async function startCallbackReceiver(): Promise<{ readonly url: string; next(): Promise<URL>; stop(): Promise<void> }> {
  const landed: URL[] = [];
  const waiting: ((url: URL) => void)[] = [];
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', `http://${request.headers.host ?? '127.0.0.1'}`);
    // The browser asks for a favicon too; only the redirect URI counts.
    if (url.pathname !== '/callback') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Signed in</title><h1>Signed in</h1>');
    const waiter = waiting.shift();
    if (waiter) waiter(url);
    else landed.push(url);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    next: () => {
      const first = landed.shift();
      return first ? Promise.resolve(first) : new Promise((resolve) => waiting.push(resolve));
    },
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Verifies a logout token as a relying party must (signature from the JWKS,
 * iss, aud, typ, events, no nonce), signed with the algorithm of the
 * client's ID tokens: RS256 unless it named another.
 */
export async function verifyLogoutToken(gatewayUrl: string, token: string, audience: string, algorithm: 'RS256' | 'ES256' | 'EdDSA' = 'RS256'): Promise<JWTPayload> {
  const keys = createRemoteJWKSet(new URL(onGateway(`${ISSUER}/oidc/jwks`, gatewayUrl)));
  const { payload, protectedHeader } = await jwtVerify(token, keys, { issuer: ISSUER, audience, typ: 'logout+jwt', algorithms: [algorithm] });
  expect(protectedHeader.alg).toBe(algorithm);
  expect(payload.events).toEqual({ 'http://schemas.openid.net/event/backchannel-logout': {} });
  expect(payload).not.toHaveProperty('nonce');
  return payload;
}

/**
 * A browser for the provider's redirects: it keeps the gateway's cookies
 * (the session, the provider's own) and follows redirects on the issuer's
 * origin, stopping where the browser would leave it (a client's redirect
 * URI) or land on a page of the web app (the interaction page).
 */
export class OidcBrowser {
  constructor(
    readonly api: ApiClient,
    private readonly gatewayUrl: string,
  ) {}

  static signedOut(gatewayUrl: string): OidcBrowser {
    return new OidcBrowser(new ApiClient(gatewayUrl), gatewayUrl);
  }

  /** Goes to `url` and follows the provider's redirects; answers where the browser ended and the last answer. */
  async navigate(url: string | URL): Promise<{ url: URL; response: ApiResponse<unknown> | undefined }> {
    let current = new URL(url);
    let response: ApiResponse<unknown> | undefined;
    for (let hop = 0; hop < 10; hop += 1) {
      if (current.origin !== ISSUER || current.pathname.startsWith('/oidc/interaction/') || current.pathname === '/device') {
        return { url: current, response };
      }
      response = await this.api.request('GET', `${current.pathname}${current.search}`, { redirect: 'manual' });
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) return { url: current, response };
      current = new URL(location, current);
    }
    throw new Error(`more than 10 redirects from ${String(url)}`);
  }

  /** Submits the first form of an HTML page the provider served (its logout confirmation), as the browser's script or user would. */
  async submitForm(html: string, extra: Record<string, string> = {}): Promise<{ url: URL; response: ApiResponse<unknown> | undefined }> {
    const form = /<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/.exec(html);
    if (!form) throw new Error(`no form in:\n${html}`);
    const fields = new URLSearchParams();
    for (const input of form[2]!.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) fields.set(input[1]!, input[2]!);
    for (const [name, value] of Object.entries(extra)) fields.set(name, value);
    const action = new URL(form[1]!, ISSUER);
    const response = await this.api.request('POST', `${action.pathname}${action.search}`, {
      body: fields.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      redirect: 'manual',
    });
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) return this.navigate(new URL(location, action));
    return { url: action, response };
  }

  /** The interaction uid of a web app interaction page URL. */
  static interactionUid(url: URL): string {
    const match = /^\/oidc\/interaction\/([^/]+)$/.exec(url.pathname);
    if (!match?.[1]) throw new Error(`not an interaction page: ${url.toString()}`);
    return match[1];
  }
}

/** A code flow's request: the URL to open and what its answer is checked against. */
export async function authorizationRequest(config: client.Configuration, parameters: Record<string, string>) {
  const codeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: parameters.redirect_uri ?? 'http://rp.localhost/callback',
    scope: 'openid email profile',
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...parameters,
  });
  return {
    url,
    exchange: (callback: URL) => client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: codeVerifier, expectedState: state, expectedNonce: nonce }),
  };
}

export { client };
