import { createPublicKey } from 'node:crypto';
import { z } from 'zod';
import {
  databaseVariables,
  env,
  grpcServiceVariables,
  loadConfig,
  natsVariables,
  platformApiVariables,
  platformCaGiven,
  platformCaProblem,
  processVariables,
  redisModeProblems,
  redisVariables,
  serviceTokenVariables,
} from '@latchkey/config';
import { adminAllowedCallersSchema } from './admin-allowed-callers';

/**
 * OWASP's minimum for Argon2id (19 MiB, t=2, p=1). Configuration may raise
 * the cost, never lower it below this floor.
 */
const ARGON2_FLOOR = { memoryKiB: 19_456, timeCost: 2, parallelism: 1 } as const;

/** Everything the identity service reads from its environment. */
export const configSchema = z
  .object({
    ...processVariables,
    ...grpcServiceVariables,
    ...platformApiVariables,
    GRPC_PORT: env.port(50051),
    /** admin.v1, on a listener of its own: open to the platform clients' certificates only (docs/integration.md). */
    ADMIN_GRPC_PORT: env.port(50061),
    ...databaseVariables,
    DATABASE_POOL_MAX: env.int(10, 1, 200),
    ...natsVariables,
    /** The gateway's session store: disabling an account ends its sessions there at once. */
    ...redisVariables,
    /**
     * With mutual TLS, per admin.v1 RPC the platform clients (by a subject
     * alternative name of their certificate) that may call it
     * (docs/integration.md, "Administration").
     */
    ADMIN_GRPC_ALLOWED_CALLERS: adminAllowedCallersSchema,
    /** The gateway's service tokens' audience, which admin.v1 registers no OpenID client under. */
    ...serviceTokenVariables,
    /** Token lifetimes in minutes, under the names of docs/api.md, "Configuration". */
    AUTH_EMAIL_VERIFICATION_TOKEN_EXPIRE_TIME: env.int(1, 1),
    AUTH_PASSWORD_RESET_TOKEN_EXPIRE_TIME: env.int(15, 1),
    AUTH_EMAIL_CHANGE_TOKEN_EXPIRE_TIME: env.int(15, 1),
    /**
     * A password reset removes the passkeys and provider links added this
     * many hours before it (docs/security.md, "A reset takes back").
     */
    AUTH_RESET_REVOKES_METHODS_HOURS: env.int(72, 0, 8_760),
    /** Organisations one account may own (docs/organisations.md). */
    ORG_MAX_PER_USER: env.int(20, 1, 10_000),
    /** How long an invitation's link works. */
    ORG_INVITATION_TTL_HOURS: env.int(168, 1, 8_760),
    /** Days an organisation's audit entries are kept (docs/audit.md, "Retention"). */
    AUDIT_RETENTION_DAYS: env.int(400, 1, 36_500),
    /**
     * With mutual TLS, the platform clients (by a subject alternative name
     * of their certificate) that may call orgs.v1 OrganizationAccessService
     * (docs/organisations.md, "From your own services"); none by default.
     */
    ORGS_GRPC_ALLOWED_CALLERS: env.csv(),
    /**
     * The DNS servers that verify organisations' domains, `host:port`
     * comma-separated (docs/operations.md, "Verified domains"); none: the
     * system's resolvers.
     */
    DNS_SERVERS: env.csv().pipe(z.array(z.string().regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, 'must be host:port'))),
    /**
     * The jobs worker's X25519 public key, base64 of its SubjectPublicKeyInfo
     * DER: webhook secrets are sealed to it, so that only the worker, which
     * holds the private key (WEBHOOK_SEALING_PRIVATE_KEY), can sign
     * deliveries (docs/decisions/0006-webhooks.md). Without it no webhook
     * endpoint can be registered.
     */
    WEBHOOK_SEALING_PUBLIC_KEY: z
      .string()
      .optional()
      .transform((value, context) => {
        if (value === undefined || value === '') return undefined;
        try {
          const key = createPublicKey({ key: Buffer.from(value, 'base64'), format: 'der', type: 'spki' });
          if (key.asymmetricKeyType === 'x25519') return key;
        } catch {
          // Reported below, as for any other shape.
        }
        context.addIssue({ code: 'custom', message: 'must be the base64 of an X25519 public key in SubjectPublicKeyInfo DER' });
        return z.NEVER;
      }),
    /** Lets webhook URLs lead to loopback and private addresses in production too (docs/operations.md, "Webhooks"). */
    WEBHOOK_ALLOW_PRIVATE_TARGETS: env.bool(false),
    /** An endpoint whose deliveries have all failed for this long is disabled and its organisation's owners mailed (docs/webhooks.md). */
    WEBHOOK_DISABLE_AFTER_HOURS: env.int(120, 1, 8_760),
    /** Days webhook messages and their attempts are kept for the delivery log (docs/webhooks.md). */
    WEBHOOK_LOG_RETENTION_DAYS: env.int(30, 1, 3_650),
    ARGON2_MEMORY_KIB: env.int(ARGON2_FLOOR.memoryKiB, ARGON2_FLOOR.memoryKiB),
    ARGON2_TIME_COST: env.int(ARGON2_FLOOR.timeCost, ARGON2_FLOOR.timeCost),
    ARGON2_PARALLELISM: env.int(ARGON2_FLOOR.parallelism, ARGON2_FLOOR.parallelism, 16),
  })
  .refine(platformCaGiven, platformCaProblem)
  .superRefine(redisModeProblems);

export type IdentityConfig = z.output<typeof configSchema>;

export function loadIdentityConfig(environment: Record<string, string | undefined> = process.env): IdentityConfig {
  return loadConfig(configSchema, environment);
}
