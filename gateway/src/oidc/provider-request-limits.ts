import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayConfig } from '../config';
import { clientKeyOf } from '../limits/client-address';
import type { RateLimiter } from '../limits/rate-limiter';
import { providerRoutes } from './provider-routes';

export type ProviderLimitSettings = Pick<
  GatewayConfig,
  'RATE_LIMIT_OIDC_AUTHORIZE_MAX' | 'RATE_LIMIT_OIDC_TOKEN_MAX' | 'RATE_LIMIT_OIDC_WINDOW_SECONDS' | 'RATE_LIMIT_IPV6_PREFIX'
>;

/**
 * The parameters an authorization request may bring: they are kept with
 * its interaction for as long as it lives, whoever sent them, so they are
 * bounded the way a browser's address bar bounds them in practice.
 */
export const MAX_AUTHORIZATION_PARAMETERS_BYTES = 4 * 1024;

/** Where an unauthenticated browser or client can make the provider keep state or work: counted per address. */
const authorizationPaths = new Set<string>([providerRoutes.authorization, providerRoutes.device_authorization, providerRoutes.end_session]);
const tokenPaths = new Set<string>([providerRoutes.token, providerRoutes.introspection, providerRoutes.revocation]);

/**
 * The limits the gateway puts on the provider's endpoints before
 * oidc-provider reads a request: requests per client address, and the size
 * of an authorization request. A refused request gets an OAuth error
 * (JSON `error`, `error_description`), as the provider's own do.
 */
export class ProviderRequestLimits {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly settings: ProviderLimitSettings,
  ) {}

  /** Answers the request when it is refused (and says so), or lets it through (false). */
  async refused(request: FastifyRequest, reply: FastifyReply, path: string): Promise<boolean> {
    const authorization = authorizationPaths.has(path);
    if (!authorization && !tokenPaths.has(path)) return false;
    if (authorization && tooLarge(request)) {
      await refuse(reply, 400, 'invalid_request', `authorization request parameters may take at most ${MAX_AUTHORIZATION_PARAMETERS_BYTES} bytes`);
      return true;
    }
    const { RATE_LIMIT_OIDC_AUTHORIZE_MAX, RATE_LIMIT_OIDC_TOKEN_MAX, RATE_LIMIT_OIDC_WINDOW_SECONDS, RATE_LIMIT_IPV6_PREFIX } = this.settings;
    const decision = await this.limiter.hit(
      authorization ? 'oidc-authorize' : 'oidc-token',
      clientKeyOf(request.ip, RATE_LIMIT_IPV6_PREFIX),
      authorization ? RATE_LIMIT_OIDC_AUTHORIZE_MAX : RATE_LIMIT_OIDC_TOKEN_MAX,
      RATE_LIMIT_OIDC_WINDOW_SECONDS,
    );
    if (decision.allowed) return false;
    void reply.header('retry-after', String(decision.retryAfterSeconds));
    await refuse(reply, 429, 'temporarily_unavailable', `too many requests from this address; retry in ${decision.retryAfterSeconds} s`);
    return true;
  }
}

/** A query over the bound, or a body over it or of unknown length (chunked), which the provider would read to 56 KiB. */
function tooLarge(request: FastifyRequest): boolean {
  const query = request.url.indexOf('?');
  if (query !== -1 && request.url.length - query - 1 > MAX_AUTHORIZATION_PARAMETERS_BYTES) return true;
  if (request.method !== 'POST') return false;
  const length = Number(request.headers['content-length']);
  return !Number.isInteger(length) || length > MAX_AUTHORIZATION_PARAMETERS_BYTES;
}

async function refuse(reply: FastifyReply, status: number, error: string, description: string): Promise<void> {
  await reply.code(status).header('cache-control', 'no-store').send({ error, error_description: description });
}
