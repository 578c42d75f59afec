import { z } from 'zod';
import { callerVariables } from '@latchkey/callees';
import { databaseVariables, env, grpcServiceVariables, loadConfig, natsVariables, processVariables, redisModeProblems, redisVariables } from '@latchkey/config';

const ENCRYPTION_KEY_BYTES = 32;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Whether `value` is canonical base64 of exactly one AES-256 key. */
function isEncryptionKey(value: string): boolean {
  return BASE64.test(value) && Buffer.from(value, 'base64').length === ENCRYPTION_KEY_BYTES;
}

/**
 * An AES-256 key given as base64. Node's decoder skips characters it does
 * not know, so the text is checked strictly first: a typo must fail at
 * start, not silently yield another key. Messages never echo the value.
 */
const encryptionKey = z
  .string()
  .trim()
  .refine(isEncryptionKey, { message: `must be ${ENCRYPTION_KEY_BYTES} bytes, base64` })
  .transform((value) => Buffer.from(value, 'base64'));

/** Retired keys, comma-separated, kept so that data sealed with them stays readable. */
const previousEncryptionKeys = env
  .csv()
  .refine((values) => values.every(isEncryptionKey), {
    message: `must be a comma-separated list of ${ENCRYPTION_KEY_BYTES}-byte base64 keys`,
  })
  .transform((values) => values.map((value) => Buffer.from(value, 'base64')));

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
  TOTP_ENCRYPTION_KEY: encryptionKey,
  /** Decryption only: after a rotation, the keys that sealed existing rows. */
  TOTP_PREVIOUS_ENCRYPTION_KEYS: previousEncryptionKeys,
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
