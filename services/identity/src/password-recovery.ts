import { randomUUID } from 'node:crypto';
import type { RequestContext } from '@latchkey/grpc-kit';
import { AppError } from '@latchkey/errors';
import { withTransaction } from '@latchkey/db';
import { jobSubjects, type PasswordResetJob } from '@latchkey/jobs-contract';
import { enqueueJob } from '@latchkey/outbox';
import { assertValid, checkEmail, checkPassword, normalizeEmail } from './account-rules';
import type { IdentityDeps } from './identity-deps';
import { enforcingOrganizationOf } from './orgs/sso-enforcement';
import { queueMail } from './mail-queue';
import { queueSessionsRevoked } from './session-revocation';
import { consumeToken, issueToken, peekToken, withdrawEmailChanges } from './one-time-tokens';
import { takeBackRecentCredentials } from './credential-ledger';
import { recordReset } from './reset-records';
import { findUserByEmail, findUserById, setPasswordHash } from './user-store';

const HOUR_MS = 60 * 60 * 1000;

/** Queues a reset mail when an account has this email; silent otherwise. */
export async function requestPasswordReset(deps: IdentityDeps, email: string, context: RequestContext): Promise<void> {
  if (checkEmail(email).length > 0) return;
  // A password would not sign in: no mail, and the same answer as for any address.
  if (await enforcingOrganizationOf(deps.pool, email)) return;
  await withTransaction(deps.pool, context, async (db) => {
    const user = await findUserByEmail(db, normalizeEmail(email));
    if (!user) return;
    const token = await issueToken(db, user.id, 'reset_password', deps.tokenTtlMinutes.resetPassword);
    await queueMail(db, { template: 'reset_password', to: user.email, handle: user.handle, token }, context);
  });
}

/** What the caller of a reset needs to end the account's sessions and take back recent ways in at once. */
export interface PasswordReset {
  readonly userId: string;
  readonly email: string;
  readonly resetId: string;
  readonly resetAt: Date;
  readonly methodsAddedAfter: Date;
}

/**
 * Sets a new password from a mailed token. The token is checked without
 * being used until the new password is known to be acceptable, so a typo
 * in the password does not burn the link. Receiving the mail proves the
 * address, so an unverified email counts verified afterwards.
 *
 * The mailbox is all a reset proves, and whoever held the account before
 * it may have added a way in of their own: the passkeys and provider links
 * of the last AUTH_RESET_REVOKES_METHODS_HOURS are taken back in the
 * credential ledger here, so that they count as ways in no more, and their
 * owners remove them (asked by the caller and by the `user.reset` job,
 * queued here, which also mails the notice naming them); so do pending
 * email changes go, which would otherwise move the account away again.
 */
export async function resetPassword(
  deps: IdentityDeps,
  input: { token: string; newPassword: string },
  context: RequestContext,
): Promise<PasswordReset> {
  const pending = await peekToken(deps.pool, input.token, 'reset_password');
  const owner = pending && (await findUserById(deps.pool, pending.userId));
  if (!owner) throw new AppError('auth:token_invalid');
  assertValid(checkPassword(input.newPassword, owner, 'new_password'));
  const passwordHash = await deps.hasher.hash(input.newPassword);
  return withTransaction(deps.pool, context, async (db) => {
    const consumed = await consumeToken(db, input.token, 'reset_password');
    const user = consumed && (await setPasswordHash(db, consumed.userId, passwordHash, { markEmailVerified: true }));
    if (!user?.password_set_at) throw new AppError('auth:token_invalid');
    await withdrawEmailChanges(db, user.id);
    await queueSessionsRevoked(db, user, 'password_reset', context);
    const resetAt = user.password_set_at;
    const reset: PasswordReset = {
      userId: user.id,
      email: user.email,
      resetId: randomUUID(),
      resetAt,
      methodsAddedAfter: new Date(resetAt.getTime() - deps.resetRevokesMethodsHours * HOUR_MS),
    };
    const job: PasswordResetJob = {
      user_id: reset.userId,
      reset_id: reset.resetId,
      methods_added_after: reset.methodsAddedAfter.toISOString(),
      reset_at: reset.resetAt.toISOString(),
    };
    // The job's worker asks for this record before it removes anything (GetPasswordReset).
    await recordReset(db, reset);
    await takeBackRecentCredentials(db, reset);
    await enqueueJob(db, jobSubjects.passwordReset, job, context);
    return reset;
  });
}
