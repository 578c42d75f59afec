import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

/**
 * Secrets the local stack generates once and keeps, because data written
 * with them must stay readable after a restart: TOTP secrets are stored
 * encrypted with TOTP_ENCRYPTION_KEY, so a new key each run would break
 * every enrolled authenticator; service tokens handed out before a restart
 * should still verify, and webhook secrets are sealed to the jobs worker's
 * key. Files from before the signing keys lack them and get them; files
 * from before RS256 or ES256 ID tokens get those keys; files from before
 * webhooks get a sealing key.
 */
const stackSecretsSchema = z.object({
  TOTP_ENCRYPTION_KEY: z.string().refine((value) => Buffer.from(value, 'base64').length === 32, {
    message: 'must be 32 bytes, base64',
  }),
  AUTH_JWT_SIGNING_KEYS: z.string().min(1).optional(),
  /** The jobs worker's X25519 private key, base64 of its PKCS#8 DER (docs/decisions/0006-webhooks.md). */
  WEBHOOK_SEALING_PRIVATE_KEY: z.string().min(1).optional(),
});

export type StackSecrets = Required<z.output<typeof stackSecretsSchema>>;

/**
 * AUTH_JWT_SIGNING_KEYS as the local stack makes them: a JSON array of
 * private JWKs with a kid, an Ed25519 key (service tokens, EdDSA ID
 * tokens), an RSA one (RS256, the ID tokens of OpenID clients that name no
 * algorithm) and a P-256 one for clients that ask for ES256.
 */
export function generateSigningKeys(): string {
  const ed25519 = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  return JSON.stringify([{ kid: `local-${randomBytes(6).toString('base64url')}`, ...ed25519 }, rsaSigningKey(), p256SigningKey()]);
}

function rsaSigningKey(): Record<string, unknown> {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  return { kid: `local-rs256-${randomBytes(6).toString('base64url')}`, ...rsa };
}

function p256SigningKey(): Record<string, unknown> {
  const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  return { kid: `local-es256-${randomBytes(6).toString('base64url')}`, ...p256 };
}

/**
 * The stored keys, with an RSA and a P-256 key added when they have none:
 * a stack whose secrets were made before RS256 or ES256 ID tokens keeps
 * its Ed25519 key (and the tokens it signed) and gains what OpenID clients
 * may ask for. Undefined when nothing is missing.
 */
function withOpenIdKeys(signingKeys: string): string | undefined {
  const keys = parseJson(signingKeys);
  if (!Array.isArray(keys)) return undefined;
  const missing = [
    ...(keys.some((key) => (key as { kty?: unknown }).kty === 'RSA') ? [] : [rsaSigningKey()]),
    ...(keys.some((key) => (key as { crv?: unknown }).crv === 'P-256') ? [] : [p256SigningKey()]),
  ];
  return missing.length === 0 ? undefined : JSON.stringify([...(keys as unknown[]), ...missing]);
}

function generateSealingKey(): string {
  return generateKeyPairSync('x25519').privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
}

/** WEBHOOK_SEALING_PUBLIC_KEY for identity: the public half of the stored sealing key, as SubjectPublicKeyInfo DER in base64. */
export function sealingPublicKeyOf(privateKey: string): string {
  const key = createPrivateKey({ key: Buffer.from(privateKey, 'base64'), format: 'der', type: 'pkcs8' });
  return createPublicKey(key).export({ format: 'der', type: 'spki' }).toString('base64');
}

function generateStackSecrets(): StackSecrets {
  return { TOTP_ENCRYPTION_KEY: randomBytes(32).toString('base64'), AUTH_JWT_SIGNING_KEYS: generateSigningKeys(), WEBHOOK_SEALING_PRIVATE_KEY: generateSealingKey() };
}

/** The parsed JSON, or undefined for text that is not JSON (reported by the schema as the wrong type). */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

// Not `instanceof Error`: errors of Node's fs do not pass it inside jest's sandbox.
function isFileExists(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === 'EEXIST';
}

/**
 * Reads the secrets from `file`, creating it on first use. The new file is
 * written aside and hard-linked into place, which fails if the file exists:
 * two stacks starting at once (parallel test files) end up with the same
 * key, and neither reads a half-written file.
 */
export async function readOrCreateStackSecrets(file: string): Promise<StackSecrets> {
  await mkdir(path.dirname(file), { recursive: true });
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(draft, `${JSON.stringify(generateStackSecrets(), null, 2)}\n`, { mode: 0o600 });
  try {
    await link(draft, file);
  } catch (error) {
    if (!isFileExists(error)) throw error;
  } finally {
    await unlink(draft);
  }
  const result = stackSecretsSchema.safeParse(parseJson(await readFile(file, 'utf8')));
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new Error(`${file} is not valid (${problems}); delete it to generate new secrets`);
  }
  const stored = result.data.AUTH_JWT_SIGNING_KEYS;
  const signingKeys = stored === undefined ? generateSigningKeys() : withOpenIdKeys(stored);
  const sealingKey = result.data.WEBHOOK_SEALING_PRIVATE_KEY;
  const completed: StackSecrets = {
    ...result.data,
    AUTH_JWT_SIGNING_KEYS: signingKeys ?? stored!,
    WEBHOOK_SEALING_PRIVATE_KEY: sealingKey ?? generateSealingKey(),
  };
  if (signingKeys === undefined && sealingKey !== undefined) return completed;
  // Renamed into place: a reader sees the old file or the new one, never half of one.
  await writeFile(draft, `${JSON.stringify(completed, null, 2)}\n`, { mode: 0o600 });
  await rename(draft, file);
  return completed;
}
