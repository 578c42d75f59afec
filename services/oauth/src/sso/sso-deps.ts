import type pg from 'pg';
import type { orgsV1 } from '@latchkey/contracts';
import type { ServiceClient } from '@latchkey/grpc-kit';
import type { SecretBox } from '@latchkey/secret-box';
import type { IdentityClient } from '../oauth-deps';
import type { SsoRequests } from './sso-requests';

export type OrganizationsClient = ServiceClient<typeof orgsV1.OrganizationsServiceService>;

/** What enterprise SSO needs, built once at start when SSO is configured (docs/sso.md). */
export interface SsoDeps {
  readonly pool: pg.Pool;
  /** Sign-ins started, bound to browsers, and the assertion ids seen. */
  readonly requests: SsoRequests;
  readonly identity: IdentityClient;
  readonly organizations: OrganizationsClient;
  /** Seals OpenID client secrets and SP decryption keys under SSO_ENCRYPTION_KEY. */
  readonly secretBox: SecretBox;
  /** The gateway's public origin (SSO_PUBLIC_URL), of which the SP's URLs are made. */
  readonly publicUrl: string;
  readonly requestTtlSeconds: number;
  /** NODE_ENV=production: identity provider endpoints must be https. */
  readonly production: boolean;
  /** SSO_ALLOW_PRIVATE_ISSUERS: OpenID issuers on loopback or private addresses (tests, local stacks). */
  readonly allowPrivateIssuers: boolean;
  /** Every call to an identity provider gives up after this long. */
  readonly providerTimeoutMs: number;
  /** Unix time in milliseconds. */
  readonly now: () => number;
}
