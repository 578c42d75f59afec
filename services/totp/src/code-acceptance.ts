import { AppError } from '@latchkey/errors';
import type pg from 'pg';
import { normalizeBackupCode } from './backup-codes';
import { secretContext } from './totp-secret-box';
import { matchTimeStep } from './totp-code';
import type { TotpDeps } from './totp-deps';
import { acceptTimeStep, consumeBackupCode, countBackupCodes, type TotpCredential } from './totp-store';

/**
 * Checks a code of an enabled user's authenticator and records its time
 * step, so that the code is never accepted again (RFC 6238 §5.2). The
 * conditional UPDATE decides between concurrent requests with one code.
 * A secret sealed with a retired key is sealed again with the current one.
 * Throws `totp:invalid_code` for a wrong, out-of-window or replayed code.
 */
export async function acceptAuthenticatorCode(
  deps: Pick<TotpDeps, 'secretBox' | 'now'>,
  db: pg.ClientBase | pg.Pool,
  credential: TotpCredential,
  code: string,
): Promise<void> {
  const context = secretContext(credential.userId);
  const secret = deps.secretBox.open(credential.sealedSecret, context);
  const step = matchTimeStep(secret, code, { nowMs: deps.now(), lastUsedStep: credential.lastUsedStep });
  if (step === undefined) throw new AppError('totp:invalid_code');
  const resealed = deps.secretBox.isStale(credential.sealedSecret) ? deps.secretBox.seal(secret, context) : undefined;
  if (!(await acceptTimeStep(db, credential.userId, step, resealed))) throw new AppError('totp:invalid_code');
}

/**
 * Uses up one backup code. Throws `totp:backup_code_exhausted` when the user
 * has none left, else `totp:invalid_code` for a code that is not theirs or
 * was used already.
 */
export async function useBackupCode(
  deps: Pick<TotpDeps, 'pool' | 'backupCodeHasher'>,
  userId: string,
  typed: string,
): Promise<void> {
  const normalized = normalizeBackupCode(typed);
  if (normalized && (await consumeBackupCode(deps.pool, userId, deps.backupCodeHasher.candidates(normalized)))) return;
  if ((await countBackupCodes(deps.pool, userId)) === 0) throw new AppError('totp:backup_code_exhausted');
  throw new AppError('totp:invalid_code');
}
