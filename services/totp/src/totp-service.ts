import { connectCallees } from '@latchkey/callees';
import { totpV1 } from '@latchkey/contracts';
import { startLedgerSweep } from '@latchkey/credential-ledger';
import { startGrpcEndpoints } from '@latchkey/grpc-kit';
import { openServiceStores } from '@latchkey/outbox';
import type { Running } from '@latchkey/runtime';
import type { Logger } from '@latchkey/telemetry';
import { BackupCodeHasher } from './backup-codes';
import { CodeFailureLimit } from './code-failure-limit';
import type { TotpConfig } from './config';
import { totpHandlers } from './handlers';
import { LoginChallenges } from './login-challenges';
import { createTotpSecretBox } from './totp-secret-box';
import { SetupTokens } from './setup-tokens';
import { totpLedger } from './totp-ledger';
import type { TotpDeps } from './totp-deps';
import { methodCallersOf } from '@latchkey/units';

export const TOTP_SCHEMA = 'totp';

export interface TotpServiceOptions {
  /** Unix time in milliseconds; tests pass a clock they can move. */
  readonly now?: () => number;
}

/**
 * Serves totp.v1 over gRPC and relays its outbox (security notices) to
 * JetStream. The broker is connected in the background: while it is away,
 * TOTP changes still succeed and their notices wait in the outbox.
 */
export async function startTotpService(
  config: TotpConfig,
  logger: Logger,
  options: TotpServiceOptions = {},
): Promise<Running> {
  const stores = openServiceStores(config, { unit: 'totp', schema: TOTP_SCHEMA, logger });
  const { pool, redis } = stores;
  const callees = connectCallees('totp', config);
  const deps: TotpDeps = {
    pool,
    secretBox: createTotpSecretBox(config.TOTP_ENCRYPTION_KEY, config.TOTP_PREVIOUS_ENCRYPTION_KEYS),
    backupCodeHasher: new BackupCodeHasher(config.TOTP_ENCRYPTION_KEY, config.TOTP_PREVIOUS_ENCRYPTION_KEYS),
    setupTokens: new SetupTokens(redis, config.REDIS_KEY_PREFIX),
    loginChallenges: new LoginChallenges(redis, config.REDIS_KEY_PREFIX, config.TOTP_TEMP_TOKEN_TTL_SECONDS),
    failureLimit: new CodeFailureLimit(redis, config.REDIS_KEY_PREFIX, {
      maxFailures: config.RATE_LIMIT_TOTP_FAILURES,
      windowSeconds: config.RATE_LIMIT_TOTP_WINDOW_SECONDS,
    }),
    identity: callees.clients.identity,
    issuer: config.TOTP_ISSUER,
    now: options.now ?? Date.now,
  };

  const endpoints = await startGrpcEndpoints({
    unit: 'totp',
    callers: methodCallersOf('totp.v1.TotpService'),
    settings: config,
    logger,
    service: { name: 'totp.v1.TotpService', definition: totpV1.TotpServiceService, handlers: totpHandlers(deps) },
    ready: stores.databaseAnswers,
  });

  // Settles what a change left unsettled in identity's credential ledger, and what the ledger began without (docs/operations.md, "The credential ledger").
  const sweep = startLedgerSweep({ pool, identity: deps.identity, logger }, totpLedger);

  return {
    readyFields: { grpc_port: endpoints.grpcPort, metrics_port: endpoints.metricsPort },
    async stop() {
      await endpoints.stop();
      await sweep.stop();
      callees.close();
      await stores.close();
    },
  };
}
