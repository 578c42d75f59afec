import type pg from 'pg';
import type { TxtLookup } from './domain-verification';
import type { WebhookSettings } from './webhooks';

/** What the organisation operations use of identity. */
export interface OrgsDeps {
  readonly pool: pg.Pool;
  /** ORG_MAX_PER_USER: organisations one account may own. */
  readonly maxOrganizationsPerUser: number;
  /** ORG_INVITATION_TTL_HOURS: how long an invitation's link works. */
  readonly invitationTtlHours: number;
  /** TXT look-ups for domain verification, through DNS_SERVERS. */
  readonly txtLookup: TxtLookup;
  /** The sealing key and address policy of webhook endpoints (docs/decisions/0006-webhooks.md). */
  readonly webhooks: WebhookSettings;
}
