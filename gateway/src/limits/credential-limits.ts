import type { FastifyRequest } from 'fastify';
import { normalizeEmail } from '@latchkey/account-fields';
import { AppError } from '@latchkey/errors';
import type { GatewayConfig } from '../config';
import { clientKeyOf } from './client-address';
import type { LoginFailures } from './login-failures';
import type { RateLimiter } from './rate-limiter';

export type CredentialLimitSettings = Pick<
  GatewayConfig,
  | 'RATE_LIMIT_IP_MAX'
  | 'RATE_LIMIT_IP_WINDOW_SECONDS'
  | 'RATE_LIMIT_IPV6_PREFIX'
  | 'RATE_LIMIT_MAIL_MAX'
  | 'RATE_LIMIT_MAIL_WINDOW_SECONDS'
>;

function exceeded(retryAfterSeconds: number): AppError {
  return new AppError('rate_limit:exceeded', undefined, { retryAfterSeconds });
}


/**
 * The answers that mean the proof was wrong (a password, or at re-authentication a provider identity of
 * someone else); every other answer gives the reserved place back.
 */
const wrongProof = new Set(['auth:invalid_credentials', 'auth:wrong_password', 'oauth:identity_not_linked']);

/** The limits on credential endpoints: per client, wrong passwords per account, mails per address. */
export class CredentialLimits {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly loginFailures: LoginFailures,
    private readonly settings: CredentialLimitSettings,
  ) {}

  /** Whom a request counts against: its address, or its IPv6 prefix. */
  clientOf(request: FastifyRequest): string {
    return clientKeyOf(request.ip, this.settings.RATE_LIMIT_IPV6_PREFIX);
  }

  /** preHandler of credential endpoints: RATE_LIMIT_IP_MAX requests per client per window. */
  readonly perClientIp = async (request: FastifyRequest): Promise<void> => {
    const { RATE_LIMIT_IP_MAX, RATE_LIMIT_IP_WINDOW_SECONDS } = this.settings;
    const decision = await this.limiter.hit('ip', this.clientOf(request), RATE_LIMIT_IP_MAX, RATE_LIMIT_IP_WINDOW_SECONDS);
    if (!decision.allowed) throw exceeded(decision.retryAfterSeconds);
  };

  /**
   * Runs a password (or other proof) check of `email`'s account under the failure limits. The
   * attempt is counted before the check, atomically, so that parallel
   * guesses get at most the limit's worth of answers; a right password
   * forgives this client's failures, any answer but a wrong password gives
   * the place back.
   */
  async checkPassword<T>(email: string, request: FastifyRequest, check: () => Promise<T>): Promise<T> {
    const client = this.clientOf(request);
    const decision = await this.loginFailures.reserve(email, client);
    if (!decision.allowed) throw exceeded(decision.retryAfterSeconds);
    let result: T;
    try {
      result = await check();
    } catch (error) {
      if (!(error instanceof AppError && wrongProof.has(error.code))) await this.loginFailures.giveBack(email, client);
      throw error;
    }
    await this.loginFailures.succeeded(email, client);
    return result;
  }

  /** After a password reset: the mailbox proved the owner, so no earlier failure counts. */
  async clearLoginFailures(email: string): Promise<void> {
    await this.loginFailures.clear(email);
  }

  /**
   * Email changes mail a confirmation to an address the caller picks: limited
   * per account and per new address like forgot-password, but answered 429,
   * since the caller is signed in and learns nothing from it.
   */
  async assertEmailChangeAllowed(userId: string, newEmail: string): Promise<void> {
    const { RATE_LIMIT_MAIL_MAX, RATE_LIMIT_MAIL_WINDOW_SECONDS } = this.settings;
    for (const [scope, subject] of [
      ['email-change', userId],
      ['mail', normalizeEmail(newEmail)],
    ] as const) {
      const decision = await this.limiter.hit(scope, subject, RATE_LIMIT_MAIL_MAX, RATE_LIMIT_MAIL_WINDOW_SECONDS);
      if (!decision.allowed) throw exceeded(decision.retryAfterSeconds);
    }
  }

  /**
   * Mails per address (forgot-password, resend). Over the limit the request is
   * still answered 202 and no mail is sent, so the answer reveals nothing.
   */
  async mayMail(email: string): Promise<boolean> {
    const { RATE_LIMIT_MAIL_MAX, RATE_LIMIT_MAIL_WINDOW_SECONDS } = this.settings;
    const decision = await this.limiter.hit('mail', normalizeEmail(email), RATE_LIMIT_MAIL_MAX, RATE_LIMIT_MAIL_WINDOW_SECONDS);
    return decision.allowed;
  }
}
