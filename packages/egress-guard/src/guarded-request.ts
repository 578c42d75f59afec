import { lookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { refusedAddressReason } from './refused-address';

/** Resolves a host name to every address it has, as the system resolver would. */
export type HostResolver = (hostname: string) => Promise<readonly string[]>;

export interface EgressPolicy {
  /**
   * Whether internal addresses may be called (refusedAddressReason): never
   * in production; outside it, local clients on loopback are the point.
   */
  readonly allowInternal: boolean;
  /** How host names are resolved; the system resolver unless a test injects one. */
  readonly resolve?: HostResolver;
}

export interface GuardedRequest {
  readonly method: 'POST' | 'PUT';
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Aborts the request, the connection included. */
  readonly signal?: AbortSignal;
}

export interface GuardedResponse {
  readonly status: number;
  /** The address the request was sent to: the one that was checked. */
  readonly address: string;
}

/** The target is, or resolves to, an address that must not be called (refusedAddressReason). */
export class EgressRefusedError extends Error {
  override readonly name = 'EgressRefusedError';

  constructor(
    readonly address: string,
    readonly reason: string,
  ) {
    super(`${address} is ${reason}`);
  }
}

const systemResolver: HostResolver = async (hostname) => (await lookup(hostname, { all: true })).map((entry) => entry.address);

/**
 * Resolves the host of a URL someone else chose and checks every address
 * it resolves to (one internal address refuses the whole name, since its
 * owner controls the order): the address to connect to. A form that takes
 * the URL calls it to refuse early with a clear reason; sendGuarded calls
 * it again and connects to what it returned, since the answer may change.
 * Throws EgressRefusedError, a TypeError for a URL that is not http(s), or
 * the resolver's error.
 */
export async function checkTarget(target: string | URL, policy: EgressPolicy): Promise<{ readonly url: URL; readonly hostname: string; readonly address: string }> {
  const url = new URL(target);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`not an http(s) URL: ${url.protocol}`);
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(hostname) ? [hostname] : await (policy.resolve ?? systemResolver)(hostname);
  const address = addresses[0];
  if (address === undefined) throw new Error(`${hostname} resolves to no address`);
  if (!policy.allowInternal) {
    for (const candidate of addresses) {
      const reason = refusedAddressReason(candidate);
      if (reason) throw new EgressRefusedError(candidate, reason);
    }
  }
  return { url, hostname, address };
}

/**
 * Sends a request to a URL someone else chose, without letting it reach
 * inside: the host is resolved once and checked (checkTarget), and the
 * connection goes to the checked address itself, with the URL's host as
 * Host header and TLS server name. So a name whose DNS answer changes
 * between the check and the connection (DNS rebinding) still reaches the
 * address that was checked, and a redirect is answered as its status,
 * never followed. The response body is read and dropped. Throws
 * EgressRefusedError, a TypeError for a URL that is not http(s), or the
 * resolver's or the connection's error.
 */
export async function sendGuarded(target: string | URL, request: GuardedRequest, policy: EgressPolicy): Promise<GuardedResponse> {
  const { url, hostname, address } = await checkTarget(target, policy);
  const status = await send(url, hostname, address, request);
  return { status, address };
}

function send(url: URL, hostname: string, address: string, request: GuardedRequest): Promise<number> {
  const secure = url.protocol === 'https:';
  return new Promise((resolve, reject) => {
    const outgoing = (secure ? httpsRequest : httpRequest)(
      {
        host: address,
        port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: request.method,
        headers: { ...request.headers, host: url.host, 'content-length': String(Buffer.byteLength(request.body)) },
        // The certificate is checked against the name, not the address (an IP is no server name: RFC 6066).
        ...(secure && isIP(hostname) === 0 ? { servername: hostname } : {}),
        signal: request.signal,
      },
      (response: IncomingMessage) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', reject);
        response.on('close', () => {
          if (!response.complete) reject(new Error('the response was cut short'));
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}
