import type pg from 'pg';
import { isUuid } from '@latchkey/account-fields';
import type { RequestContext } from '@latchkey/grpc-kit';
import { AppError } from '@latchkey/errors';
import { withTransaction } from '@latchkey/db';
import { queueEvent } from '@latchkey/domain-events';
import { normalizeEmail } from './account-rules';
import { actorOf, recordAdminAction, type AdminAction } from './audit-log';
import type { IdentityDeps } from './identity-deps';
import { removeAccount } from './account-deletion';
import { queueMail } from './mail-queue';
import { issueToken } from './one-time-tokens';
import { endSessionsNow, queueSessionsRevoked } from './session-revocation';
import { findUserByEmail, findUserByHandle, findUserById, raiseSessionEpoch, setDisabled, type UserRecord } from './user-store';

const MAX_REASON_LENGTH = 500;

export function requireUserId(value: string, field = 'user_id'): string {
  if (!isUuid(value)) throw AppError.validation([{ field, message: 'must be a UUID' }]);
  return value.toLowerCase();
}

/** One account by id, email or handle; the read is recorded before it is answered. */
export async function findUser(
  deps: IdentityDeps,
  key: { id?: string | undefined; email?: string | undefined; handle?: string | undefined },
  context: RequestContext,
): Promise<UserRecord> {
  const actor = actorOf(context);
  let user: UserRecord | undefined;
  if (key.id !== undefined) user = await findUserById(deps.pool, requireUserId(key.id, 'id'));
  else if (key.email !== undefined) user = await findUserByEmail(deps.pool, normalizeEmail(key.email));
  else if (key.handle !== undefined) user = await findUserByHandle(deps.pool, key.handle.trim().toLowerCase());
  else throw AppError.validation([{ field: 'key', message: 'give an id, an email or a handle' }]);
  // A lookup that finds nothing shows no one's data, and its key (an email, a handle) is not kept.
  if (!user) throw new AppError('user:not_found');
  await recordAdminAction(deps.pool, { ...actor, action: 'find_user', userIds: [user.id] });
  return user;
}

/** One admin action on one account: locked, changed, audited and its jobs queued in one transaction. */
async function administer(
  deps: IdentityDeps,
  userId: string,
  action: AdminAction,
  context: RequestContext,
  change: (db: pg.ClientBase, user: UserRecord) => Promise<UserRecord>,
  reason?: string,
): Promise<UserRecord> {
  const actor = actorOf(context);
  const id = requireUserId(userId);
  return withTransaction(deps.pool, context, async (db) => {
    const user = await findUserById(db, id, true);
    if (!user) throw new AppError('user:not_found');
    const changed = await change(db, user);
    await recordAdminAction(db, { ...actor, action, userIds: [id], reason });
    return changed;
  });
}

/** docs/integration.md, "Administration": no sign-in, every session ended at once. */
export async function disableUser(deps: IdentityDeps, input: { userId: string; reason: string }, context: RequestContext): Promise<UserRecord> {
  const reason = input.reason.trim();
  if (reason.length > MAX_REASON_LENGTH) throw AppError.validation([{ field: 'reason', message: `must be at most ${MAX_REASON_LENGTH} characters` }]);
  const user = await administer(
    deps,
    input.userId,
    'disable_user',
    context,
    async (db, current) => {
      const disabled = (await setDisabled(db, current.id, reason)) as UserRecord;
      await queueSessionsRevoked(db, disabled, 'account_disabled', context);
      await queueEvent(db, 'user.disabled', { userId: disabled.id }, context);
      return disabled;
    },
    reason,
  );
  await endSessionsNow(deps, user.id, user.session_epoch, context);
  return user;
}

export async function enableUser(deps: IdentityDeps, userId: string, context: RequestContext): Promise<UserRecord> {
  return administer(deps, userId, 'enable_user', context, async (db, current) => (await setDisabled(db, current.id, null)) as UserRecord);
}

export async function revokeAllSessions(deps: IdentityDeps, userId: string, context: RequestContext): Promise<void> {
  const user = await administer(deps, userId, 'revoke_all_sessions', context, async (db, current) => {
    const raised = (await raiseSessionEpoch(db, current.id)) as UserRecord;
    await queueSessionsRevoked(db, raised, 'admin', context);
    return raised;
  });
  await endSessionsNow(deps, user.id, user.session_epoch, context);
}

export async function sendPasswordReset(deps: IdentityDeps, userId: string, context: RequestContext): Promise<void> {
  await administer(deps, userId, 'send_password_reset', context, async (db, current) => {
    const token = await issueToken(db, current.id, 'reset_password', deps.tokenTtlMinutes.resetPassword);
    await queueMail(db, { template: 'reset_password', to: current.email, handle: current.handle, token }, context);
    return current;
  });
}

/** The cascade of the user's own deletion, audited, with the sessions ended now. */
export async function deleteUserAsAdmin(deps: IdentityDeps, userId: string, context: RequestContext): Promise<void> {
  const user = await administer(deps, userId, 'delete_user', context, async (db, current) => {
    await removeAccount(db, current, 'admin', context);
    return current;
  });
  await endSessionsNow(deps, user.id, Infinity, context);
}
