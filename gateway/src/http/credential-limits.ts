import type { FastifyRequest } from 'fastify';
import { AppError } from '@latchkey/errors';
import type { GatewayDeps } from '../gateway-deps';

function exceeded(retryAfterSeconds: number): AppError {
  return new AppError('rate_limit:exceeded', undefined, { retryAfterSeconds });
}

/** preHandler of credential endpoints: RATE_LIMIT_IP_MAX requests per client IP per window. */
export function limitCredentialRequests(deps: GatewayDeps) {
  return async (request: FastifyRequest): Promise<void> => {
    const { RATE_LIMIT_IP_MAX, RATE_LIMIT_IP_WINDOW_SECONDS } = deps.config;
    const decision = await deps.rateLimiter.hit('ip', request.ip, RATE_LIMIT_IP_MAX, RATE_LIMIT_IP_WINDOW_SECONDS);
    if (!decision.allowed) throw exceeded(decision.retryAfterSeconds);
  };
}

/** Failed logins per account: checked before the password is, so a locked account costs no hashing. */
export const loginFailures = {
  /** Returns the failures so far, so that a login after none can skip `clear`. */
  async assertBelowLimit(deps: GatewayDeps, email: string): Promise<number> {
    const decision = await deps.rateLimiter.peek('login-failure', normalize(email), deps.config.RATE_LIMIT_LOGIN_FAILURES);
    if (!decision.allowed) throw exceeded(decision.retryAfterSeconds);
    return decision.count;
  },
  async record(deps: GatewayDeps, email: string): Promise<void> {
    const { RATE_LIMIT_LOGIN_FAILURES, RATE_LIMIT_LOGIN_WINDOW_SECONDS } = deps.config;
    await deps.rateLimiter.hit('login-failure', normalize(email), RATE_LIMIT_LOGIN_FAILURES, RATE_LIMIT_LOGIN_WINDOW_SECONDS);
  },
  async clear(deps: GatewayDeps, email: string): Promise<void> {
    await deps.rateLimiter.reset('login-failure', normalize(email));
  },
};

/**
 * Mails per address (forgot-password, resend). Over the limit the request is
 * still answered 202 and no mail is sent, so the answer reveals nothing.
 */
export async function mayMail(deps: GatewayDeps, email: string): Promise<boolean> {
  const { RATE_LIMIT_MAIL_MAX, RATE_LIMIT_MAIL_WINDOW_SECONDS } = deps.config;
  const decision = await deps.rateLimiter.hit('mail', normalize(email), RATE_LIMIT_MAIL_MAX, RATE_LIMIT_MAIL_WINDOW_SECONDS);
  return decision.allowed;
}

function normalize(email: string): string {
  return email.trim().toLowerCase();
}
