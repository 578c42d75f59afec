import { connectCallees } from '@latchkey/callees';
import { oauthV1, ssoV1 } from '@latchkey/contracts';
import { startLedgerSweep } from '@latchkey/credential-ledger';
import { startGrpcEndpoints } from '@latchkey/grpc-kit';
import { openServiceStores } from '@latchkey/outbox';
import type { Running } from '@latchkey/runtime';
import type { Logger } from '@latchkey/telemetry';
import type { OAuthConfig } from './config';
import { connectionLedger } from './connection-ledger';
import { oauthHandlers } from './handlers';
import type { OAuthDeps } from './oauth-deps';
import { OAuthStates } from './oauth-state';
import { PendingSignups } from './pending-signups';
import { createProviderRegistry } from './providers/provider-registry';
import { methodCallersOf } from '@latchkey/units';
import { SecretBox } from '@latchkey/secret-box';
import type { SsoDeps } from './sso/sso-deps';
import { ssoHandlers } from './sso/sso-handlers';
import { SSO_KEY_PURPOSE } from './sso/sso-key-purpose';
import { SsoRequests } from './sso/sso-requests';

export const OAUTH_SCHEMA = 'oauth';

/**
 * Serves oauth.v1 over gRPC and relays its outbox (link and unlink notices)
 * to JetStream. The broker is connected in the background: while it is
 * away, connections still change and their notices wait in the outbox.
 */
export async function startOAuthService(config: OAuthConfig, logger: Logger): Promise<Running> {
  const stores = openServiceStores(config, { unit: 'oauth', schema: OAUTH_SCHEMA, logger });
  const { pool, redis } = stores;
  const callees = connectCallees('oauth', config);
  const { identity, orgs } = callees.clients;
  const deps: OAuthDeps = {
    pool,
    identity,
    providers: createProviderRegistry(config, logger),
    states: new OAuthStates(redis, config.REDIS_KEY_PREFIX, config.OAUTH_STATE_TTL_SECONDS),
    pendingSignups: new PendingSignups(redis, config.REDIS_KEY_PREFIX, config.OAUTH_PENDING_SIGNUP_TTL_MINUTES),
    now: Date.now,
  };

  // Enterprise SSO (docs/sso.md): on when SSO_PUBLIC_URL and SSO_ENCRYPTION_KEY are set (config.ts allows both or neither).
  const sso: SsoDeps | undefined =
    config.SSO_PUBLIC_URL !== undefined && config.SSO_ENCRYPTION_KEY !== undefined
      ? {
          pool,
          requests: new SsoRequests(redis, config.REDIS_KEY_PREFIX, config.SSO_REQUEST_TTL_SECONDS),
          identity,
          organizations: orgs,
          secretBox: new SecretBox(SSO_KEY_PURPOSE, config.SSO_ENCRYPTION_KEY, config.SSO_PREVIOUS_ENCRYPTION_KEYS),
          publicUrl: config.SSO_PUBLIC_URL,
          requestTtlSeconds: config.SSO_REQUEST_TTL_SECONDS,
          production: config.NODE_ENV === 'production',
          allowPrivateIssuers: config.SSO_ALLOW_PRIVATE_ISSUERS,
          providerTimeoutMs: config.OAUTH_PROVIDER_TIMEOUT_MS,
          now: Date.now,
        }
      : undefined;

  const endpoints = await startGrpcEndpoints({
    unit: 'oauth',
    callers: methodCallersOf('oauth.v1.OAuthService'),
    settings: config,
    logger,
    service: { name: 'oauth.v1.OAuthService', definition: oauthV1.OAuthServiceService, handlers: oauthHandlers(deps) },
    internalServices: [
      {
        // Enterprise SSO's connections and sign-ins (docs/decisions/0004-enterprise-sso.md), for the gateway.
        name: 'sso.v1.SsoService',
        definition: ssoV1.SsoServiceService,
        handlers: ssoHandlers(sso, { pool, identity }),
        callers: methodCallersOf('sso.v1.SsoService'),
      },
    ],
    ready: stores.databaseAnswers,
  });

  // Settles what a change left unsettled in identity's credential ledger, and what the ledger began without (docs/operations.md, "The credential ledger").
  const sweep = startLedgerSweep({ pool, identity, logger }, connectionLedger);

  return {
    readyFields: { grpc_port: endpoints.grpcPort, metrics_port: endpoints.metricsPort, providers: deps.providers.names(), sso: sso !== undefined },
    async stop() {
      await endpoints.stop();
      await sweep.stop();
      callees.close();
      await stores.close();
    },
  };
}
