import type { RequestContext } from '@latchkey/grpc-kit';
import { AppError } from '@latchkey/errors';
import { withTransaction } from '@latchkey/db';
import { assertValid, checkEmail, checkPassword, normalizeEmail } from './account-rules';
import type { IdentityDeps } from './identity-deps';
import { queueMail, queueSecurityNotice } from './mail-queue';
import { queueSessionsRevoked } from './session-revocation';
import { consumeToken, issueToken, peekToken } from './one-time-tokens';
import { findUserByEmail, findUserById, setPasswordHash } from './user-store';

/** Queues a reset mail when an account has this email; silent otherwise. */
export async function requestPasswordReset(deps: IdentityDeps, email: string, context: RequestContext): Promise<void> {
  if (checkEmail(email).length > 0) return;
  await withTransaction(deps.pool, context, async (db) => {
    const user = await findUserByEmail(db, normalizeEmail(email));
    if (!user) return;
    const token = await issueToken(db, user.id, 'reset_password', deps.tokenTtlMinutes.resetPassword);
    await queueMail(db, { template: 'reset_password', to: user.email, handle: user.handle, token }, context);
  });
}

/**
 * Sets a new password from a mailed token. The token is checked without
 * being used until the new password is known to be acceptable, so a typo
 * in the password does not burn the link. Receiving the mail proves the
 * address, so an unverified email counts verified afterwards.
 */
export async function resetPassword(
  deps: IdentityDeps,
  input: { token: string; newPassword: string },
  context: RequestContext,
): Promise<{ userId: string; email: string }> {
  const pending = await peekToken(deps.pool, input.token, 'reset_password');
  const owner = pending && (await findUserById(deps.pool, pending.userId));
  if (!owner) throw new AppError('auth:token_invalid');
  assertValid(checkPassword(input.newPassword, owner, 'new_password'));
  const passwordHash = await deps.hasher.hash(input.newPassword);
  return withTransaction(deps.pool, context, async (db) => {
    const consumed = await consumeToken(db, input.token, 'reset_password');
    const user = consumed && (await setPasswordHash(db, consumed.userId, passwordHash, { markEmailVerified: true }));
    if (!user) throw new AppError('auth:token_invalid');
    await queueSecurityNotice(db, user, 'password_reset', context);
    await queueSessionsRevoked(db, user, 'password_reset', context);
    return { userId: user.id, email: user.email };
  });
}
