import type pg from 'pg';
import type { identityV1 } from '@latchkey/contracts';
import type { ServiceClient } from '@latchkey/grpc-kit';
import type { OAuthStates } from './oauth-state';
import type { PendingSignups } from './pending-signups';
import type { ProviderRegistry } from './providers/provider-registry';

export type IdentityClient = ServiceClient<typeof identityV1.IdentityServiceService>;

/** What the OAuth operations need, built once at start. */
export interface OAuthDeps {
  readonly pool: pg.Pool;
  readonly identity: IdentityClient;
  readonly providers: ProviderRegistry;
  readonly states: OAuthStates;
  readonly pendingSignups: PendingSignups;
  /** Unix time in milliseconds. */
  readonly now: () => number;
}
