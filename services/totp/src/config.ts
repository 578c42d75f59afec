import { z } from 'zod';
import { backingServices, env, grpcServiceVariables, loadConfig, processVariables } from '@latchkey/config';

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
  DATABASE_URL: backingServices.DATABASE_URL,
  DATABASE_POOL_MAX: env.int(10, 1, 200),
  REDIS_URL: backingServices.REDIS_URL,
  REDIS_KEY_PREFIX: backingServices.REDIS_KEY_PREFIX,
  NATS_URL: backingServices.NATS_URL,
  NATS_USER: backingServices.NATS_USER,
  NATS_PASSWORD: backingServices.NATS_PASSWORD,
  NATS_SUBJECT_PREFIX: backingServices.NATS_SUBJECT_PREFIX,
  /** The issuer shown by authenticator apps (docs/api.md, "Second factor (TOTP)"). */
  TOTP_ISSUER: z.string().trim().min(1).default('Latchkey'),
  /** Encrypts TOTP secrets at rest and keys the backup code hashes. */
  TOTP_ENCRYPTION_KEY: encryptionKey,
  /** Decryption only: after a rotation, the keys that sealed existing rows. */
  TOTP_PREVIOUS_ENCRYPTION_KEYS: previousEncryptionKeys,
  TOTP_TEMP_TOKEN_TTL_SECONDS: env.int(300, 1, 3_600),
  /** docs/api.md, "Rate limits": 10 wrong TOTP codes per user per 15 minutes. */
  RATE_LIMIT_TOTP_FAILURES: env.int(10, 1, 1_000),
  RATE_LIMIT_TOTP_WINDOW_SECONDS: env.int(900, 1, 86_400),
});

export type TotpConfig = z.output<typeof configSchema>;

export function loadTotpConfig(environment: Record<string, string | undefined> = process.env): TotpConfig {
  return loadConfig(configSchema, environment);
}
