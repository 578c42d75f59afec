import type { FastifyRequest } from 'fastify';
import { AppError } from '@latchkey/errors';
import type { GatewayConfig } from '../config';
import type { RateLimiter } from './rate-limiter';

export type CredentialLimitSettings = Pick<
  GatewayConfig,
  | 'RATE_LIMIT_IP_MAX'
  | 'RATE_LIMIT_IP_WINDOW_SECONDS'
  | 'RATE_LIMIT_LOGIN_FAILURES'
  | 'RATE_LIMIT_LOGIN_WINDOW_SECONDS'
  | 'RATE_LIMIT_MAIL_MAX'
  | 'RATE_LIMIT_MAIL_WINDOW_SECONDS'
>;

function exceeded(retryAfterSeconds: number): AppError {
  return new AppError('rate_limit:exceeded', undefined, { retryAfterSeconds });
}

function normalize(email: string): string {
  return email.trim().toLowerCase();
}

/** The limits on credential endpoints: per client IP, failed logins per account, mails per address. */
export class CredentialLimits {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly settings: CredentialLimitSettings,
  ) {}

  /** preHandler of credential endpoints: RATE_LIMIT_IP_MAX requests per client IP per window. */
  readonly perClientIp = async (request: FastifyRequest): Promise<void> => {
    const { RATE_LIMIT_IP_MAX, RATE_LIMIT_IP_WINDOW_SECONDS } = this.settings;
    const decision = await this.limiter.hit('ip', request.ip, RATE_LIMIT_IP_MAX, RATE_LIMIT_IP_WINDOW_SECONDS);
    if (!decision.allowed) throw exceeded(decision.retryAfterSeconds);
  };

  /**
   * Failed logins per account, checked before the password is, so a locked
   * account costs no hashing. Answers the failures so far, so that a login
   * after none can skip `clearLoginFailures`.
   */
  async assertLoginAllowed(email: string): Promise<number> {
    const decision = await this.limiter.peek('login-failure', normalize(email), this.settings.RATE_LIMIT_LOGIN_FAILURES);
    if (!decision.allowed) throw exceeded(decision.retryAfterSeconds);
    return decision.count;
  }

  async recordLoginFailure(email: string): Promise<void> {
    const { RATE_LIMIT_LOGIN_FAILURES, RATE_LIMIT_LOGIN_WINDOW_SECONDS } = this.settings;
    await this.limiter.hit('login-failure', normalize(email), RATE_LIMIT_LOGIN_FAILURES, RATE_LIMIT_LOGIN_WINDOW_SECONDS);
  }

  async clearLoginFailures(email: string): Promise<void> {
    await this.limiter.reset('login-failure', normalize(email));
  }

  /**
   * Mails per address (forgot-password, resend). Over the limit the request is
   * still answered 202 and no mail is sent, so the answer reveals nothing.
   */
  async mayMail(email: string): Promise<boolean> {
    const { RATE_LIMIT_MAIL_MAX, RATE_LIMIT_MAIL_WINDOW_SECONDS } = this.settings;
    const decision = await this.limiter.hit('mail', normalize(email), RATE_LIMIT_MAIL_MAX, RATE_LIMIT_MAIL_WINDOW_SECONDS);
    return decision.allowed;
  }
}
