import type { RequestContext } from '@latchkey/grpc-kit';
import { randomBytes } from 'node:crypto';
import { toDataURL } from 'qrcode';
import { changeCredentials } from '@latchkey/credential-ledger';
import { AppError } from '@latchkey/errors';
import { generateBackupCodes, normalizeBackupCode } from './backup-codes';
import { assertValid, checkAccountEmail, checkNoticeRecipient, checkToken, checkTotpCode, checkUserId } from './input-rules';
import { queueSecurityNotice, type NoticeRecipient } from './mail-queue';
import { secretContext } from './totp-secret-box';
import { encodeSecret, matchTimeStep, otpauthUri } from './totp-code';
import type { TotpDeps } from './totp-deps';
import { TOTP_REFERENCE, totpLedger } from './totp-ledger';
import { findCredential, insertCredential, replaceBackupCodes } from './totp-store';

/** 160 bits: RFC 4226 §4 requires at least 128 and recommends 160 for HMAC-SHA-1. */
const SECRET_BYTES = 20;

export interface TotpSetup {
  readonly secret: string;
  readonly otpauthUri: string;
  readonly qrCodePng: string;
  readonly setupToken: string;
  readonly setupTokenExpiresAt: Date;
}

function generateSecret(): Buffer {
  try {
    return randomBytes(SECRET_BYTES);
  } catch (error) {
    throw new AppError('totp:secret_generation_failed', undefined, { cause: error });
  }
}

async function renderQrCode(otpauthUri: string): Promise<string> {
  try {
    // Error correction M survives a slightly blurred phone photo of a screen.
    return await toDataURL(otpauthUri, { type: 'image/png', errorCorrectionLevel: 'M', margin: 2, width: 256 });
  } catch (error) {
    throw new AppError('totp:qr_generation_failed', undefined, { cause: error });
  }
}

/**
 * Starts enrolment: a new secret, its URI and QR code, and a setup token
 * that binds the secret (sealed, in Redis) to this user for 10 minutes.
 */
export async function beginTotpSetup(
  deps: TotpDeps,
  input: { userId: string; accountEmail: string },
): Promise<TotpSetup> {
  assertValid(checkUserId(input.userId), checkAccountEmail(input.accountEmail));
  if (await findCredential(deps.pool, input.userId)) throw new AppError('totp:already_enabled');
  const secretBytes = generateSecret();
  const secret = encodeSecret(secretBytes);
  const uri = otpauthUri(deps.issuer, input.accountEmail, secretBytes);
  const qrCodePng = await renderQrCode(uri);
  const sealed = deps.secretBox.seal(secretBytes, secretContext(input.userId));
  const { token, expiresAt } = await deps.setupTokens.issue(input.userId, sealed, deps.now());
  return { secret, otpauthUri: uri, qrCodePng, setupToken: token, setupTokenExpiresAt: expiresAt };
}

/**
 * Enables TOTP once the user's authenticator proves it holds the setup
 * secret. The secret, the step of the proving code (so that the same code
 * cannot also pass the next login), the backup codes and the notice mail
 * commit together, reserved before in identity's credential ledger: from
 * then on no sign-in skips the second step (docs/architecture.md, "The
 * credential ledger"). If identity cannot be reached nothing is turned on.
 * Answers the backup codes, which exist nowhere else.
 */
export async function enableTotp(
  deps: TotpDeps,
  input: { userId: string; setupToken: string; code: string } & NoticeRecipient,
  context: RequestContext,
): Promise<string[]> {
  assertValid(
    checkUserId(input.userId),
    checkToken(input.setupToken, 'setup_token'),
    checkTotpCode(input.code),
    checkNoticeRecipient(input),
  );
  if (await findCredential(deps.pool, input.userId)) throw new AppError('totp:already_enabled');
  const sealed = await deps.setupTokens.find(input.userId, input.setupToken);
  if (!sealed) throw new AppError('totp:setup_token_invalid');

  const backupCodes = await deps.failureLimit.guard(input.userId, async () => {
    const binding = secretContext(input.userId);
    const secret = deps.secretBox.open(sealed, binding);
    const step = matchTimeStep(secret, input.code, { nowMs: deps.now() });
    if (step === undefined) throw new AppError('totp:invalid_code');
    const codes = generateBackupCodes();
    const hashes = codes.map((code) => deps.backupCodeHasher.hash(normalizeBackupCode(code) as string));
    const sealedSecret = deps.secretBox.isStale(sealed) ? deps.secretBox.seal(secret, binding) : sealed;
    await changeCredentials(deps, totpLedger, input.userId, async (db, ledger) => {
      if (await findCredential(db, input.userId)) throw new AppError('totp:already_enabled');
      await ledger.reserve(TOTP_REFERENCE);
      const created = await insertCredential(db, { userId: input.userId, sealedSecret, acceptedStep: step });
      if (!created) throw new AppError('totp:already_enabled');
      await replaceBackupCodes(db, input.userId, hashes);
      await queueSecurityNotice(db, input, 'totp_enabled', context);
    }, context);
    return codes;
  });
  // Best effort: TOTP is on and the codes exist nowhere else, so they must reach the user; a
  // token left behind only answers totp:already_enabled, and expires within 10 minutes.
  await deps.setupTokens.consume(input.userId, input.setupToken).catch(() => undefined);
  return backupCodes;
}
