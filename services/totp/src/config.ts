import { z } from 'zod';
import { callerVariables } from '@latchkey/callees';
import { databaseVariables, env, grpcServiceVariables, loadConfig, natsVariables, processVariables, redisModeProblems, redisVariables } from '@latchkey/config';

/** Everything the TOTP service reads from its environment. */
export const configSchema = z.object({
  ...processVariables,
  ...grpcServiceVariables,
  GRPC_PORT: env.port(50053),
  ...databaseVariables,
  DATABASE_POOL_MAX: env.int(10, 1, 200),
  ...redisVariables,
  ...natsVariables,
  /** The issuer shown by authenticator apps (docs/api.md, "Second factor (TOTP)"). */
  TOTP_ISSUER: z.string().trim().min(1).default('Latchkey'),
  /** Encrypts TOTP secrets at rest and keys the backup code hashes. */
  TOTP_ENCRYPTION_KEY: env.encryptionKey(),
  /** Decryption only: after a rotation, the keys that sealed existing rows. */
  TOTP_PREVIOUS_ENCRYPTION_KEYS: env.previousEncryptionKeys(),
  TOTP_TEMP_TOKEN_TTL_SECONDS: env.int(300, 1, 3_600),
  /** Identity, whose credential ledger holds which accounts have TOTP on (docs/architecture.md, "The credential ledger"). */
  ...callerVariables('totp'),
  /** docs/api.md, "Rate limits": 10 wrong TOTP codes per user per 15 minutes. */
  RATE_LIMIT_TOTP_FAILURES: env.int(10, 1, 1_000),
  RATE_LIMIT_TOTP_WINDOW_SECONDS: env.int(900, 1, 86_400),
}).superRefine(redisModeProblems);

export type TotpConfig = z.output<typeof configSchema>;

export function loadTotpConfig(environment: Record<string, string | undefined> = process.env): TotpConfig {
  return loadConfig(configSchema, environment);
}
