import type { RequestContext } from '@latchkey/grpc-kit';
import { AppError } from '@latchkey/errors';
import { withTransaction } from '@latchkey/db';
import { assertValid, checkPassword } from './account-rules';
import type { IdentityDeps } from './identity-deps';
import { queueSecurityNotice } from './mail-queue';
import { queueSessionsRevoked } from './session-revocation';
import { withdrawEmailChanges } from './one-time-tokens';
import { findUserById, setPasswordHash, type UserRecord } from './user-store';

/**
 * Checks the current password of an authenticated user; shared by every
 * operation that asks for it again before a sensitive change.
 */
export async function checkCurrentPassword(deps: IdentityDeps, userId: string, password: string): Promise<UserRecord> {
  const user = await findUserById(deps.pool, userId);
  if (!user) throw new AppError('auth:unauthorized');
  if (!user.password_hash) throw new AppError('auth:password_not_set');
  const check = await deps.hasher.verify(user.password_hash, password);
  if (!check.valid) throw new AppError('auth:wrong_password');
  return user;
}

export async function changePassword(
  deps: IdentityDeps,
  input: { userId: string; currentPassword: string; newPassword: string },
  context: RequestContext,
): Promise<{ sessionEpoch: number }> {
  const user = await checkCurrentPassword(deps, input.userId, input.currentPassword);
  assertValid(checkPassword(input.newPassword, user, 'new_password'));
  const passwordHash = await deps.hasher.hash(input.newPassword);
  return withTransaction(deps.pool, context, async (db) => {
    const updated = await setPasswordHash(db, user.id, passwordHash);
    if (!updated) throw new AppError('auth:unauthorized');
    // An email change asked for from a stolen session must not outlive the owner's new password.
    await withdrawEmailChanges(db, updated.id);
    await queueSecurityNotice(db, updated, 'password_changed', context);
    await queueSessionsRevoked(db, updated, 'password_changed', context);
    return { sessionEpoch: updated.session_epoch };
  });
}
