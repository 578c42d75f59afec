import type { RequestContext } from '@latchkey/grpc-kit';
import { AppError } from '@latchkey/errors';
import { withTransaction } from '@latchkey/db';
import type { IdentityDeps } from './identity-deps';
import { queueMail } from './mail-queue';
import { issueToken } from './one-time-tokens';
import { endSessionsNow, queueSessionsRevoked } from './session-revocation';
import { dropPassword, findUserById, type UserRecord } from './user-store';

/**
 * Whether the password in force was set before the email was verified:
 * then whoever chose it never proved they own the address. That is how a
 * pre-account takeover starts (Sudhodanan and Paverd, USENIX Security
 * 2022): someone registers the victim's address with a password of theirs,
 * the victim verifies it (or signs in through a provider that vouches for
 * it), and both hold the account. A password set with or after the proof
 * (a reset, a change after verification) is the owner's.
 */
export function passwordPredatesVerification(user: Pick<UserRecord, 'password_set_at' | 'email_verified_at'>): boolean {
  return user.password_set_at !== null && user.email_verified_at !== null && user.password_set_at < user.email_verified_at;
}

/**
 * Readies an account for a provider link made by its verified email without
 * a prompt (oauth's automatic link): a password that may be a squatter's is
 * dropped, every session ends, and the address gets a link to set a new
 * password, as a reset would. Linking without a prompt is only safe once
 * nobody else can sign in with a credential of their own.
 */
export async function prepareProviderLink(
  deps: IdentityDeps,
  input: { userId: string; provider: string },
  context: RequestContext,
): Promise<{ user: UserRecord; passwordDropped: boolean }> {
  const result = await withTransaction(deps.pool, context, async (db) => {
    const user = await findUserById(db, input.userId, true);
    if (!user) throw new AppError('auth:unauthorized');
    if (!user.email_verified_at) throw new AppError('oauth:email_not_verified');
    if (!passwordPredatesVerification(user)) return { user, passwordDropped: false };
    const dropped = (await dropPassword(db, user.id)) as UserRecord;
    await queueSessionsRevoked(db, dropped, 'password_dropped', context);
    const token = await issueToken(db, user.id, 'reset_password', deps.tokenTtlMinutes.resetPassword);
    await queueMail(db, { template: 'password_dropped', to: user.email, handle: user.handle, token, provider: input.provider }, context);
    return { user: dropped, passwordDropped: true };
  });
  if (result.passwordDropped) await endSessionsNow(deps, result.user.id, result.user.session_epoch, context);
  return result;
}
