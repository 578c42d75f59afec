import { normalizeEmail } from '@latchkey/account-fields';
import { AppError } from '@latchkey/errors';
import type { GatewayConfig } from '../config';
import type { RateLimiter } from './rate-limiter';

export type OrganizationLimitSettings = Pick<
  GatewayConfig,
  | 'RATE_LIMIT_ORG_CREATES'
  | 'RATE_LIMIT_ORG_CREATES_WINDOW_SECONDS'
  | 'RATE_LIMIT_INVITATIONS'
  | 'RATE_LIMIT_INVITATIONS_WINDOW_SECONDS'
  | 'RATE_LIMIT_DOMAIN_VERIFICATIONS'
  | 'RATE_LIMIT_DOMAIN_VERIFICATIONS_WINDOW_SECONDS'
  | 'RATE_LIMIT_MAIL_MAX'
  | 'RATE_LIMIT_MAIL_WINDOW_SECONDS'
  | 'RATE_LIMIT_SCIM_REQUESTS'
  | 'RATE_LIMIT_SCIM_WINDOW_SECONDS'
>;

function exceeded(retryAfterSeconds: number): AppError {
  return new AppError('rate_limit:exceeded', undefined, { retryAfterSeconds });
}

/**
 * What organisations cost the platform and others: creations per account,
 * invitations, which mail whatever address a member types, per
 * organisation and, with every other mail Latchkey sends, per address, and
 * domain verifications, each a DNS look-up, per account (not per
 * organisation: a stranger's calls, refused by identity after the count,
 * would use up the organisation's own) (docs/api.md, "Rate limits"). Answered 429: the caller is signed in.
 */
export class OrganizationLimits {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly settings: OrganizationLimitSettings,
  ) {}

  async assertCreateAllowed(userId: string): Promise<void> {
    const decision = await this.limiter.hit('org-create', userId, this.settings.RATE_LIMIT_ORG_CREATES, this.settings.RATE_LIMIT_ORG_CREATES_WINDOW_SECONDS);
    if (!decision.allowed) throw exceeded(decision.retryAfterSeconds);
  }

  async assertInvitationAllowed(organizationId: string, email: string): Promise<void> {
    const { RATE_LIMIT_INVITATIONS, RATE_LIMIT_INVITATIONS_WINDOW_SECONDS, RATE_LIMIT_MAIL_MAX, RATE_LIMIT_MAIL_WINDOW_SECONDS } = this.settings;
    for (const [scope, subject, limit, window] of [
      ['org-invitation', organizationId, RATE_LIMIT_INVITATIONS, RATE_LIMIT_INVITATIONS_WINDOW_SECONDS],
      ['mail', normalizeEmail(email), RATE_LIMIT_MAIL_MAX, RATE_LIMIT_MAIL_WINDOW_SECONDS],
    ] as const) {
      const decision = await this.limiter.hit(scope, subject, limit, window);
      if (!decision.allowed) throw exceeded(decision.retryAfterSeconds);
    }
  }

  async assertDomainVerificationAllowed(userId: string): Promise<void> {
    const { RATE_LIMIT_DOMAIN_VERIFICATIONS, RATE_LIMIT_DOMAIN_VERIFICATIONS_WINDOW_SECONDS } = this.settings;
    const decision = await this.limiter.hit('org-domain-verification', userId, RATE_LIMIT_DOMAIN_VERIFICATIONS, RATE_LIMIT_DOMAIN_VERIFICATIONS_WINDOW_SECONDS);
    if (!decision.allowed) throw exceeded(decision.retryAfterSeconds);
  }

  /**
   * SCIM requests per bearer token (the limiter keeps its SHA-256 only), so
   * that one organisation's identity provider cannot crowd out others'. An
   * unknown token is counted too: it is refused after, by identity.
   */
  async assertScimAllowed(token: string): Promise<void> {
    const decision = await this.limiter.hit('scim', token, this.settings.RATE_LIMIT_SCIM_REQUESTS, this.settings.RATE_LIMIT_SCIM_WINDOW_SECONDS);
    if (!decision.allowed) throw exceeded(decision.retryAfterSeconds);
  }
}
