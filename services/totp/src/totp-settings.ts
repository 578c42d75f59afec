import type { RequestContext } from '@latchkey/grpc-kit';
import { changeCredentials } from '@latchkey/credential-ledger';
import { AppError } from '@latchkey/errors';
import { withTransaction } from '@latchkey/db';
import { generateBackupCodes, normalizeBackupCode } from './backup-codes';
import { acceptAuthenticatorCode } from './code-acceptance';
import { assertValid, checkNoticeRecipient, checkTotpCode, checkUserId } from './input-rules';
import { queueSecurityNotice, type NoticeRecipient } from './mail-queue';
import type { TotpDeps } from './totp-deps';
import { TOTP_REFERENCE, totpLedger } from './totp-ledger';
import { countBackupCodes, deleteCredential, findCredential, replaceBackupCodes, type TotpCredential } from './totp-store';

export interface TotpStatus {
  readonly enabled: boolean;
  readonly enabledAt: Date | undefined;
  readonly backupCodesRemaining: number;
}

type CodeConfirmedRequest = { userId: string; code: string } & NoticeRecipient;

export async function getTotpStatus(deps: TotpDeps, userId: string): Promise<TotpStatus> {
  assertValid(checkUserId(userId));
  const credential = await findCredential(deps.pool, userId);
  if (!credential) return { enabled: false, enabledAt: undefined, backupCodesRemaining: 0 };
  return { enabled: true, enabledAt: credential.enabledAt, backupCodesRemaining: await countBackupCodes(deps.pool, userId) };
}

/** The credential of a user whose TOTP is on, after the request's fields are checked. */
async function requireCredential(deps: TotpDeps, input: CodeConfirmedRequest): Promise<TotpCredential> {
  assertValid(checkUserId(input.userId), checkTotpCode(input.code), checkNoticeRecipient(input));
  const credential = await findCredential(deps.pool, input.userId);
  if (!credential) throw new AppError('totp:not_enabled');
  return credential;
}

/**
 * Turns TOTP off after a current TOTP code (docs/api.md, "Second factor (TOTP)":
 * a backup code is a recovery means for login, not for removing the
 * factor). The secret and backup codes go; the notice is queued with them;
 * identity's credential ledger, where the removal is reserved before, is
 * settled after: until then it still counts TOTP as possibly on, which
 * costs a sign-in a call to this unit and nothing else.
 */
export async function disableTotp(deps: TotpDeps, input: CodeConfirmedRequest, context: RequestContext): Promise<void> {
  const credential = await requireCredential(deps, input);
  await deps.failureLimit.guard(input.userId, () =>
    changeCredentials(deps, totpLedger, input.userId, async (db, ledger) => {
      await acceptAuthenticatorCode(deps, db, credential, input.code);
      await ledger.reserveRemoval(TOTP_REFERENCE);
      await deleteCredential(db, input.userId);
      await queueSecurityNotice(db, input, 'totp_disabled', context);
    }, context),
  );
}

/** Replaces every backup code after a current TOTP code; answers the new codes. */
export async function regenerateBackupCodes(
  deps: TotpDeps,
  input: CodeConfirmedRequest,
  context: RequestContext,
): Promise<string[]> {
  const credential = await requireCredential(deps, input);
  return deps.failureLimit.guard(input.userId, () =>
    withTransaction(deps.pool, context, async (db) => {
      await acceptAuthenticatorCode(deps, db, credential, input.code);
      const codes = generateBackupCodes();
      const hashes = codes.map((code) => deps.backupCodeHasher.hash(normalizeBackupCode(code) as string));
      await replaceBackupCodes(db, input.userId, hashes);
      await queueSecurityNotice(db, input, 'backup_codes_regenerated', context);
      return codes;
    }),
  );
}

/**
 * Removes everything held about a user: the credential with its backup
 * codes, a pending setup, open login challenges and the failure counter.
 * Idempotent, for account deletion.
 */
export async function deleteTotpUserData(deps: TotpDeps, userId: string): Promise<void> {
  assertValid(checkUserId(userId));
  await deleteCredential(deps.pool, userId);
  await Promise.all([
    deps.setupTokens.deleteFor(userId),
    deps.loginChallenges.deleteFor(userId),
    deps.failureLimit.clear(userId),
  ]);
}
