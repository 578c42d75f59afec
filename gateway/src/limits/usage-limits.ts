import type { FastifyRequest } from 'fastify';
import { AppError } from '@latchkey/errors';
import type { GatewayConfig } from '../config';
import { clientKeyOf } from './client-address';
import type { RateLimiter } from './rate-limiter';

export type UsageLimitSettings = Pick<
  GatewayConfig,
  | 'RATE_LIMIT_SEARCH_MAX'
  | 'RATE_LIMIT_SEARCH_WINDOW_SECONDS'
  | 'RATE_LIMIT_POST_WRITES'
  | 'RATE_LIMIT_POST_WRITES_WINDOW_SECONDS'
  | 'RATE_LIMIT_IPV6_PREFIX'
>;

/**
 * Limits on routes that cost the platform without touching a credential:
 * full-text search per client, which anyone may call and which ranks
 * documents, and post writes per user, which store content and queue jobs.
 */
export class UsageLimits {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly settings: UsageLimitSettings,
  ) {}

  /** preHandler of search: RATE_LIMIT_SEARCH_MAX requests per client per window. */
  readonly searchPerClient = async (request: FastifyRequest): Promise<void> => {
    const { RATE_LIMIT_SEARCH_MAX, RATE_LIMIT_SEARCH_WINDOW_SECONDS, RATE_LIMIT_IPV6_PREFIX } = this.settings;
    const client = clientKeyOf(request.ip, RATE_LIMIT_IPV6_PREFIX);
    const decision = await this.limiter.hit('search', client, RATE_LIMIT_SEARCH_MAX, RATE_LIMIT_SEARCH_WINDOW_SECONDS);
    if (!decision.allowed) throw new AppError('rate_limit:exceeded', undefined, { retryAfterSeconds: decision.retryAfterSeconds });
  };

  /** Post creates and updates per user: RATE_LIMIT_POST_WRITES per window. */
  async assertPostWriteAllowed(userId: string): Promise<void> {
    const { RATE_LIMIT_POST_WRITES, RATE_LIMIT_POST_WRITES_WINDOW_SECONDS } = this.settings;
    const decision = await this.limiter.hit('post-write', userId, RATE_LIMIT_POST_WRITES, RATE_LIMIT_POST_WRITES_WINDOW_SECONDS);
    if (!decision.allowed) throw new AppError('rate_limit:exceeded', undefined, { retryAfterSeconds: decision.retryAfterSeconds });
  }
}
