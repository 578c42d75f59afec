import type pg from 'pg';
import type { identityV1 } from '@latchkey/contracts';
import type { ServiceClient } from '@latchkey/grpc-kit';
import type { CeremonyChallenges } from './ceremony-challenges';
import type { RelyingParty } from './relying-party';

/** What the passkey operations need, built once at start. */
export interface PasskeysDeps {
  readonly pool: pg.Pool;
  readonly challenges: CeremonyChallenges;
  readonly relyingParty: RelyingParty;
  readonly identity: ServiceClient<typeof identityV1.IdentityServiceService>;
}
