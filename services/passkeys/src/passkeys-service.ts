import { connectCallees } from '@latchkey/callees';
import { passkeysV1 } from '@latchkey/contracts';
import { startLedgerSweep } from '@latchkey/credential-ledger';
import { startGrpcEndpoints } from '@latchkey/grpc-kit';
import { openServiceStores } from '@latchkey/outbox';
import type { Running } from '@latchkey/runtime';
import type { Logger } from '@latchkey/telemetry';
import { methodCallersOf } from '@latchkey/units';
import { CeremonyChallenges } from './ceremony-challenges';
import type { PasskeysConfig } from './config';
import { passkeysHandlers } from './handlers';
import { passkeyLedger } from './passkey-ledger';
import type { PasskeysDeps } from './passkeys-deps';
import { relyingPartyOf } from './relying-party';

export const PASSKEYS_SCHEMA = 'passkeys';

/**
 * Serves passkeys.v1 over gRPC and relays its outbox (passkey notices) to
 * JetStream. The broker is connected in the background: while it is away,
 * passkeys still change and their notices wait in the outbox.
 */
export async function startPasskeysService(config: PasskeysConfig, logger: Logger): Promise<Running> {
  const stores = openServiceStores(config, { unit: 'passkeys', schema: PASSKEYS_SCHEMA, logger });
  const { pool, redis } = stores;
  const callees = connectCallees('passkeys', config);
  const deps: PasskeysDeps = {
    pool,
    challenges: new CeremonyChallenges(redis, config.REDIS_KEY_PREFIX),
    relyingParty: relyingPartyOf(config),
    identity: callees.clients.identity,
  };

  const endpoints = await startGrpcEndpoints({
    unit: 'passkeys',
    callers: methodCallersOf('passkeys.v1.PasskeysService'),
    settings: config,
    logger,
    service: { name: 'passkeys.v1.PasskeysService', definition: passkeysV1.PasskeysServiceService, handlers: passkeysHandlers(deps) },
    ready: stores.databaseAnswers,
  });

  // Settles what a change left unsettled in identity's credential ledger, and what the ledger began without (docs/operations.md, "The credential ledger").
  const sweep = startLedgerSweep({ pool, identity: deps.identity, logger }, passkeyLedger);

  return {
    readyFields: { grpc_port: endpoints.grpcPort, metrics_port: endpoints.metricsPort, rp_id: deps.relyingParty.id },
    async stop() {
      await endpoints.stop();
      await sweep.stop();
      callees.close();
      await stores.close();
    },
  };
}
