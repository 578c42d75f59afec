import { adminV1, identityV1, oidcV1, orgsV1, scimV1, webhooksV1 } from '@latchkey/contracts';
import { startGrpcEndpoints } from '@latchkey/grpc-kit';
import { openServiceStores } from '@latchkey/outbox';
import type { Running } from '@latchkey/runtime';
import type { Logger } from '@latchkey/telemetry';
import type { IdentityConfig } from './config';
import { adminHandlers } from './admin-handlers';
import { identityHandlers } from './handlers';
import { deleteExpiredEndings } from './ended-sessions';
import { deleteExpiredTokens } from './one-time-tokens';
import { deleteOldResets } from './reset-records';
import { deleteExpiredArtifacts } from './oidc/oidc-artifacts';
import { oidcHandlers } from './oidc/oidc-handlers';
import { txtLookup } from './orgs/domain-verification';
import { organizationAccessHandlers, organizationsHandlers } from './orgs/orgs-handlers';
import { expireOrgAudit } from './orgs/org-audit-log';
import { expireWebhookMessages } from './orgs/webhook-delivery-log';
import { webhookDeliveryHandlers } from './orgs/webhook-delivery-handlers';
import { PasswordHasher } from './password-hasher';
import { scimHandlers } from './scim/scim-handlers';
import { methodCallersOf } from '@latchkey/units';

export const IDENTITY_SCHEMA = 'identity';
const TOKEN_SWEEP_INTERVAL_MS = 10 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Serves identity.v1 over gRPC and relays its outbox to JetStream. The
 * broker is connected in the background: while it is away, registrations
 * still succeed and their mails wait in the outbox.
 */
export async function startIdentityService(config: IdentityConfig, logger: Logger): Promise<Running> {
  const stores = openServiceStores(config, { unit: 'identity', schema: IDENTITY_SCHEMA, logger });
  const { pool, redis } = stores;
  const hasher = new PasswordHasher({
    memoryKiB: config.ARGON2_MEMORY_KIB,
    timeCost: config.ARGON2_TIME_COST,
    parallelism: config.ARGON2_PARALLELISM,
  });
  const orgs = {
    pool,
    maxOrganizationsPerUser: config.ORG_MAX_PER_USER,
    invitationTtlHours: config.ORG_INVITATION_TTL_HOURS,
    txtLookup: txtLookup(config.DNS_SERVERS),
    webhooks: {
      sealingKey: config.WEBHOOK_SEALING_PUBLIC_KEY,
      egress: { allowInternal: config.NODE_ENV !== 'production' || config.WEBHOOK_ALLOW_PRIVATE_TARGETS },
    },
  };
  const deps = {
    pool,
    hasher,
    sessions: { redis, keyPrefix: config.REDIS_KEY_PREFIX },
    resetRevokesMethodsHours: config.AUTH_RESET_REVOKES_METHODS_HOURS,
    serviceTokenAudience: config.AUTH_JWT_AUDIENCE,
    tokenTtlMinutes: {
      verifyEmail: config.AUTH_EMAIL_VERIFICATION_TOKEN_EXPIRE_TIME,
      resetPassword: config.AUTH_PASSWORD_RESET_TOKEN_EXPIRE_TIME,
      changeEmail: config.AUTH_EMAIL_CHANGE_TOKEN_EXPIRE_TIME,
    },
  };

  const sweep = setInterval(() => {
    deleteExpiredTokens(pool).catch((error: unknown) => logger.warn({ err: error }, 'token sweep failed'));
    deleteExpiredArtifacts(pool).catch((error: unknown) => logger.warn({ err: error }, 'OpenID artifact sweep failed'));
    deleteExpiredEndings(pool).catch((error: unknown) => logger.warn({ err: error }, 'ended session sweep failed'));
    deleteOldResets(pool).catch((error: unknown) => logger.warn({ err: error }, 'password reset sweep failed'));
    expireOrgAudit(pool, new Date(Date.now() - config.AUDIT_RETENTION_DAYS * DAY_MS)).catch((error: unknown) =>
      logger.warn({ err: error }, 'organisation audit retention failed'),
    );
    expireWebhookMessages(pool, new Date(Date.now() - config.WEBHOOK_LOG_RETENTION_DAYS * DAY_MS)).catch((error: unknown) =>
      logger.warn({ err: error }, 'webhook delivery log retention failed'),
    );
  }, TOKEN_SWEEP_INTERVAL_MS);
  sweep.unref();

  const endpoints = await startGrpcEndpoints({
    unit: 'identity',
    callers: methodCallersOf('identity.v1.IdentityService'),
    settings: config,
    logger,
    service: { name: 'identity.v1.IdentityService', definition: identityV1.IdentityServiceService, handlers: identityHandlers(deps) },
    internalServices: [
      {
        // The OpenID Provider's store: the gateway runs the protocol, the jobs worker ends applications' sessions.
        name: 'oidc.v1.OidcService',
        definition: oidcV1.OidcServiceService,
        handlers: oidcHandlers(deps),
        callers: methodCallersOf('oidc.v1.OidcService'),
      },
      {
        // Organisations (docs/decisions/0003-organisations-in-identity.md): the gateway's routes and tokens.
        name: 'orgs.v1.OrganizationsService',
        definition: orgsV1.OrganizationsServiceService,
        handlers: organizationsHandlers(orgs),
        callers: methodCallersOf('orgs.v1.OrganizationsService'),
      },
      {
        // SCIM provisioning (docs/scim.md): the gateway's /scim/v2 routes and their token routes.
        name: 'scim.v1.ScimService',
        definition: scimV1.ScimServiceService,
        handlers: scimHandlers(deps),
        callers: methodCallersOf('scim.v1.ScimService'),
      },
      {
        // Webhook deliveries (docs/webhooks.md): what the jobs worker sends, and how each attempt went.
        name: 'webhooks.v1.WebhookDeliveryService',
        definition: webhooksV1.WebhookDeliveryServiceService,
        handlers: webhookDeliveryHandlers({ pool, disableAfterMs: config.WEBHOOK_DISABLE_AFTER_HOURS * 3_600_000 }),
        callers: methodCallersOf('webhooks.v1.WebhookDeliveryService'),
      },
    ],
    platform: {
      port: config.ADMIN_GRPC_PORT,
      services: [
        {
          name: 'admin.v1.AdminService',
          definition: adminV1.AdminServiceService,
          handlers: adminHandlers(deps, orgs),
          callers: config.ADMIN_GRPC_ALLOWED_CALLERS,
        },
        {
          // What the services beside Latchkey ask of organisations (docs/organisations.md).
          name: 'orgs.v1.OrganizationAccessService',
          definition: orgsV1.OrganizationAccessServiceService,
          handlers: organizationAccessHandlers(orgs),
          callers: { '*': config.ORGS_GRPC_ALLOWED_CALLERS },
        },
      ],
    },
    ready: stores.databaseAnswers,
  });

  return {
    readyFields: { grpc_port: endpoints.grpcPort, admin_grpc_port: endpoints.platformPort, metrics_port: endpoints.metricsPort },
    async stop() {
      clearInterval(sweep);
      await endpoints.stop();
      await stores.close();
    },
  };
}
