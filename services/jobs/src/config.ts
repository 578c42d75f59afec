import { createPrivateKey } from 'node:crypto';
import { z } from 'zod';
import { callerVariables } from '@latchkey/callees';
import { objectStoreVariables, s3CredentialsPaired, s3CredentialsProblem } from '@latchkey/object-store';
import {
  databaseVariables,
  env,
  grpcServiceVariables,
  loadConfig,
  mutualTlsVariables,
  natsVariables,
  openIdProviderKeyProblems,
  processVariables,
  redisModeProblems,
  redisVariables,
  signingKeysSchema,
} from '@latchkey/config';
import { checkSearchEngineSettings, searchEngineVariables } from '@latchkey/search-engine';

/** Everything the jobs worker reads from its environment. */
export const configSchema = z
  .object({
    ...processVariables,
    ...databaseVariables,
    DATABASE_POOL_MAX: env.int(5, 1, 200),
    ...natsVariables,
    /** Where the gateway keeps sessions: the worker ends those a credential change or account deletion revoked. */
    ...redisVariables,
    SMTP_URL: env.url(['smtp', 'smtps']),
    MAIL_FROM: z.string().min(3).default('Latchkey <no-reply@localhost>'),
    PUBLIC_APP_URL: env.url(['http', 'https']),
    ...objectStoreVariables,
    /** The address of the metrics port; `pnpm stack` sets 127.0.0.1. */
    LISTEN_HOST: grpcServiceVariables.LISTEN_HOST,
    METRICS_PORT: env.port(9464),
    /** The units the jobs call, and GRPC_DEADLINE_MS, the budget of one delivery (packages/units). */
    ...callerVariables('jobs'),
    ...mutualTlsVariables,
    /** Deliveries of one job before it is parked on the dead-letter subject. */
    JOBS_MAX_DELIVERIES: env.int(8, 1, 100),
    /** How many jobs of one kind run at once in this process. */
    JOBS_CONCURRENCY: env.int(8, 1, 256),
    /** First retry delay; each further delivery doubles it, up to a minute. Tests lower it. */
    JOBS_RETRY_BASE_MS: env.int(1_000, 1, 60_000),
    /** Account cleanups and content deletions retry this long after they were queued, not JOBS_MAX_DELIVERIES times. */
    JOBS_CLEANUP_RETRY_HOURS: env.int(24, 1, 168),
    /** An account whose email is not verified within this many hours is deleted (docs/api.md, "Accounts"). */
    AUTH_UNVERIFIED_ACCOUNT_TTL_HOURS: env.int(72, 1, 8_760),
    /** How often the worker looks for such accounts. */
    JOBS_UNVERIFIED_PURGE_INTERVAL_SECONDS: env.int(600, 1, 86_400),
    /**
     * The OpenID Provider is on (docs/oidc.md): the worker tells its clients
     * that sessions ended, with logout tokens signed by the provider's keys.
     */
    OIDC_ENABLED: env.bool(false),
    OIDC_ISSUER: env.url(['http', 'https']).optional(),
    /** The provider's keys (the gateway's AUTH_JWT_SIGNING_KEYS); required with OIDC_ENABLED. */
    AUTH_JWT_SIGNING_KEYS: signingKeysSchema.optional(),
    /**
     * The X25519 private key, base64 of its PKCS #8 DER, that opens the
     * webhook secrets identity sealed to its public half
     * (WEBHOOK_SEALING_PUBLIC_KEY): only the worker can sign deliveries
     * (docs/decisions/0006-webhooks.md). Without it messages wait, retried
     * each minute, until it is set.
     */
    WEBHOOK_SEALING_PRIVATE_KEY: z
      .string()
      .optional()
      .transform((value, context) => {
        if (value === undefined || value === '') return undefined;
        try {
          const key = createPrivateKey({ key: Buffer.from(value, 'base64'), format: 'der', type: 'pkcs8' });
          if (key.asymmetricKeyType === 'x25519') return key;
        } catch {
          // Reported below, as for any other shape.
        }
        context.addIssue({ code: 'custom', message: 'must be the base64 of an X25519 private key in PKCS #8 DER' });
        return z.NEVER;
      }),
    /**
     * How long an endpoint has to answer an attempt (docs/webhooks.md);
     * within one delivery's budget (GRPC_DEADLINE_MS) less a second for
     * recording the attempt, whichever is shorter.
     */
    WEBHOOK_TIMEOUT_SECONDS: env.int(5, 1, 30),
    /** The pauses after each failed attempt, in seconds; once they are spent the message is given up (docs/webhooks.md). */
    WEBHOOK_RETRY_SCHEDULE_SECONDS: z
      .string()
      .default('5,300,1800,7200,18000,36000')
      .transform((value) => value.split(',').map((part) => Number(part.trim())))
      .pipe(z.array(z.number().int().min(1).max(86_400)).min(1).max(20)),
    /** Lets deliveries go to loopback and private addresses in production too (docs/operations.md, "Webhooks"). */
    WEBHOOK_ALLOW_PRIVATE_TARGETS: env.bool(false),
    /** Webhook deliveries under way at once in this process. */
    WEBHOOK_CONCURRENCY: env.int(32, 1, 512),
    /** Of those, at most this many to one endpoint: a slow or dead endpoint holds no more slots than that. */
    WEBHOOK_ENDPOINT_CONCURRENCY: env.int(4, 1, 64),
    /** The engine whose index the worker keeps; posts must name the same one. */
    ...searchEngineVariables,
  })
  .refine(s3CredentialsPaired, s3CredentialsProblem)
  .superRefine(checkSearchEngineSettings)
  .superRefine(redisModeProblems)
  .refine((config) => !config.OIDC_ENABLED || config.AUTH_JWT_SIGNING_KEYS !== undefined, {
    message: 'is required when OIDC_ENABLED is true: logout tokens are signed with it',
    path: ['AUTH_JWT_SIGNING_KEYS'],
  })
  .superRefine((config, context) => {
    // The gateway's keys: a client's logout tokens are signed like its ID tokens, RS256 unless it named another.
    if (!config.OIDC_ENABLED || !config.AUTH_JWT_SIGNING_KEYS) return;
    for (const { variable, message } of openIdProviderKeyProblems(config.AUTH_JWT_SIGNING_KEYS, [])) context.addIssue({ code: 'custom', path: [variable], message });
  });

export type JobsConfig = z.output<typeof configSchema>;

export function loadJobsConfig(environment: Record<string, string | undefined> = process.env): JobsConfig {
  return loadConfig(configSchema, environment);
}
