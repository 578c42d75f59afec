import { AppError, type FieldError } from '@latchkey/errors';
import { acceptAuthenticatorCode, useBackupCode } from './code-acceptance';
import { assertValid, checkBackupCode, checkToken, checkTotpCode, checkUserId } from './input-rules';
import { MAX_CHALLENGE_ATTEMPTS, type FirstStep } from './login-challenges';
import type { TotpDeps } from './totp-deps';
import { findCredential } from './totp-store';

/** What the user typed at the second step of login: exactly one of the two. */
export type LoginProof = { readonly code: string } | { readonly backupCode: string };

/**
 * Issues the temporary login token for a user whose first factor (password,
 * or later an OAuth provider) succeeded and who has TOTP enabled.
 */
export async function createLoginChallenge(
  deps: TotpDeps,
  userId: string,
  sessionEpoch: number,
): Promise<{ token: string; expiresAt: Date }> {
  assertValid(checkUserId(userId), checkSessionEpoch(sessionEpoch));
  if (!(await findCredential(deps.pool, userId))) throw new AppError('totp:not_enabled');
  return deps.loginChallenges.issue(userId, deps.now(), { firstFactor: 'pwd', sessionEpoch });
}

/**
 * The second step of a sign-in whose first factor succeeded, in one call:
 * a login challenge for a user with TOTP enabled, nothing for any other.
 */
export async function beginLogin(
  deps: TotpDeps,
  userId: string,
  firstStep: FirstStep,
): Promise<{ token: string; expiresAt: Date } | undefined> {
  assertValid(
    checkUserId(userId),
    checkSessionEpoch(firstStep.sessionEpoch),
    firstStep.organizationId === undefined ? [] : checkUserId(firstStep.organizationId, 'organization_id'),
  );
  if (!(await findCredential(deps.pool, userId))) return undefined;
  return deps.loginChallenges.issue(userId, deps.now(), firstStep);
}

/** Epochs start at 0 and only grow (identity.v1 User.session_epoch). */
function checkSessionEpoch(sessionEpoch: number): FieldError[] {
  return Number.isInteger(sessionEpoch) && sessionEpoch >= 0 ? [] : [{ field: 'session_epoch', message: 'must be a non-negative integer' }];
}

/**
 * Completes a login: checks the proof against the token's user and answers
 * that user's id, the first factor of its sign-in and the credential epoch
 * it was proved under, which the caller compares with the account's: a
 * challenge outlives no password change, reset or disable. docs/api.md, "Second factor (TOTP)": single use (success ends the token), dead
 * after 5 wrong codes (the fifth answers `totp:invalid_code`, later uses
 * `totp:temp_token_invalid`), `totp:temp_token_expired` once expired.
 *
 * Each call takes an attempt atomically before it tests anything, so that
 * parallel guesses cannot exceed the 5. An attempt that tested no code (rate
 * limited, no backup code left, an internal failure) is given back.
 *
 * If two right proofs race on one token, the proof of the loser is used up
 * (its step recorded or its backup code deleted) although it gets
 * `totp:temp_token_invalid`: ending the token first would instead let a
 * wrong proof kill a token after one attempt.
 */
export async function verifyLoginChallenge(
  deps: TotpDeps,
  input: { tempToken: string; code?: string | undefined; backupCode?: string | undefined },
): Promise<{ userId: string } & FirstStep> {
  const { tempToken } = input;
  const proof = toLoginProof(input);
  const fields = [...checkToken(tempToken, 'temp_token'), ...checkProof(proof)];
  if (!proof || fields.length > 0) throw AppError.validation(fields);

  const reservation = await deps.loginChallenges.reserveAttempt(tempToken, deps.now());
  if (reservation.outcome === 'expired') throw new AppError('totp:temp_token_expired');
  if (reservation.outcome !== 'reserved') throw new AppError('totp:temp_token_invalid');
  const { userId, attempt, firstFactor, sessionEpoch, organizationId } = reservation;

  try {
    await deps.failureLimit.guard(userId, async () => {
      const credential = await findCredential(deps.pool, userId);
      // TOTP was disabled (or the account deleted) since the challenge was issued.
      if (!credential) throw new AppError('totp:temp_token_invalid');
      if ('code' in proof) await acceptAuthenticatorCode(deps, deps.pool, credential, proof.code);
      else await useBackupCode(deps, userId, proof.backupCode);
    });
  } catch (error) {
    await settleFailedAttempt(deps, tempToken, attempt, error);
    throw error;
  }
  if (!(await deps.loginChallenges.end(tempToken))) throw new AppError('totp:temp_token_invalid');
  return { userId, firstFactor, sessionEpoch, organizationId };
}

export function toLoginProof(input: { code?: string | undefined; backupCode?: string | undefined }): LoginProof | undefined {
  if (input.code !== undefined) return { code: input.code };
  if (input.backupCode !== undefined) return { backupCode: input.backupCode };
  return undefined;
}

export function checkProof(proof: LoginProof | undefined): FieldError[] {
  if (!proof) return [{ field: 'code', message: 'a code or a backup code is required' }];
  return 'code' in proof ? checkTotpCode(proof.code) : checkBackupCode(proof.backupCode);
}

/**
 * Keeps a wrong code's attempt (ending the token at the last one) and gives
 * back any other. Best effort: a dead token is refused by its attempt count
 * even if ending it fails, and the caller's error must not be replaced.
 */
async function settleFailedAttempt(deps: TotpDeps, tempToken: string, attempt: number, error: unknown): Promise<void> {
  const code = error instanceof AppError ? error.code : undefined;
  let settled: Promise<unknown> = Promise.resolve();
  if (code === 'totp:invalid_code') {
    if (attempt >= MAX_CHALLENGE_ATTEMPTS) settled = deps.loginChallenges.end(tempToken);
  } else if (code === 'totp:temp_token_invalid') {
    settled = deps.loginChallenges.end(tempToken);
  } else {
    settled = deps.loginChallenges.releaseAttempt(tempToken);
  }
  await settled.catch(() => undefined);
}
