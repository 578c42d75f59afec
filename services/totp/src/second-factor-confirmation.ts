import { AppError } from '@latchkey/errors';
import { acceptAuthenticatorCode, useBackupCode } from './code-acceptance';
import { checkUserId } from './input-rules';
import { checkProof, toLoginProof } from './totp-login';
import type { TotpDeps } from './totp-deps';
import { findCredential } from './totp-store';

/**
 * Confirms, outside a login, that an enabled user holds their second factor.
 * The proof is spent as at login (the code's step recorded, a backup code
 * used up), so a code seen over someone's shoulder cannot be used again, and
 * wrong codes count against the same per-account limit.
 */
export async function confirmSecondFactor(
  deps: TotpDeps,
  input: { userId: string; code?: string | undefined; backupCode?: string | undefined },
): Promise<void> {
  const proof = toLoginProof(input);
  const fields = [...checkUserId(input.userId), ...checkProof(proof)];
  if (!proof || fields.length > 0) throw AppError.validation(fields);
  await deps.failureLimit.guard(input.userId, async () => {
    const credential = await findCredential(deps.pool, input.userId);
    if (!credential) throw new AppError('totp:not_enabled');
    if ('code' in proof) await acceptAuthenticatorCode(deps, deps.pool, credential, proof.code);
    else await useBackupCode(deps, input.userId, proof.backupCode);
  });
}
