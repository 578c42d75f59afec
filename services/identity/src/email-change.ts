import { queueEvent } from '@latchkey/domain-events';
import type { RequestContext } from '@latchkey/grpc-kit';
import { AppError } from '@latchkey/errors';
import { withTransaction } from '@latchkey/db';
import { assertValid, checkNewEmail, normalizeEmail } from './account-rules';
import type { IdentityDeps } from './identity-deps';
import { queueMail, queueSecurityNotice } from './mail-queue';
import { consumeToken, issueToken, withdrawEmailChanges } from './one-time-tokens';
import { revokeUserTokens } from './oidc/oidc-artifacts';
import { checkCurrentPassword } from './password-change';
import { uniquenessError } from './registration';
import { findUserByEmail, findUserById, setVerifiedEmail, type UserRecord } from './user-store';

/**
 * Mails a confirmation link to the new address; the email changes only when
 * it is used. The current address is told at once, with a link that cancels
 * the change: a change asked for from a stolen session is seen by the owner
 * before it can be confirmed, not after.
 */
export async function requestEmailChange(
  deps: IdentityDeps,
  input: { userId: string; currentPassword: string; newEmail: string },
  context: RequestContext,
): Promise<void> {
  assertValid(checkNewEmail(input.newEmail, 'new_email'));
  const user = await checkCurrentPassword(deps, input.userId, input.currentPassword);
  const newEmail = normalizeEmail(input.newEmail);
  if (newEmail === user.email) {
    throw AppError.validation([{ field: 'new_email', message: 'must differ from the current email' }]);
  }
  if (await findUserByEmail(deps.pool, newEmail)) throw new AppError('user:email_taken');
  await withTransaction(deps.pool, context, async (db) => {
    const token = await issueToken(db, user.id, 'change_email', deps.tokenTtlMinutes.changeEmail, newEmail);
    await queueMail(db, { template: 'confirm_email_change', to: newEmail, handle: user.handle, token }, context);
    // Valid as long as the confirmation link, which it withdraws.
    const cancelToken = await issueToken(db, user.id, 'cancel_email_change', deps.tokenTtlMinutes.changeEmail, newEmail);
    await queueMail(db, { template: 'email_change_requested', to: user.email, handle: user.handle, token: cancelToken, new_email: newEmail }, context);
  });
}

/** Withdraws the pending email changes of the account whose old address received `token`. */
export async function cancelEmailChange(deps: IdentityDeps, token: string, context: RequestContext): Promise<void> {
  await withTransaction(deps.pool, context, async (db) => {
    const consumed = await consumeToken(db, token, 'cancel_email_change');
    if (!consumed) throw new AppError('auth:token_invalid');
    await withdrawEmailChanges(db, consumed.userId);
  });
}

/**
 * Moves the account to the confirmed address and tells the old address,
 * so that a takeover through a stolen session does not go unnoticed.
 */
export async function confirmEmailChange(deps: IdentityDeps, token: string, context: RequestContext): Promise<UserRecord> {
  try {
    return await withTransaction(deps.pool, context, async (db) => {
      const consumed = await consumeToken(db, token, 'change_email');
      const before = consumed?.newEmail ? await findUserById(db, consumed.userId, true) : undefined;
      if (!consumed?.newEmail || !before) throw new AppError('auth:token_invalid');
      const after = await setVerifiedEmail(db, before.id, consumed.newEmail);
      if (!after) throw new AppError('auth:token_invalid');
      await withdrawEmailChanges(db, after.id);
      // The account's way back (the mailbox) moved: the applications' codes and tokens end, as with a password
      // change; their consents stay (docs/oidc.md, "Tokens").
      await revokeUserTokens(db, after.id);
      await queueSecurityNotice(db, before, 'email_changed', context, { new_email: after.email });
      await queueEvent(db, 'user.email_changed', { userId: after.id }, context);
      return after;
    });
  } catch (error) {
    throw uniquenessError(error) ?? error;
  }
}
