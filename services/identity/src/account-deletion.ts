import type pg from 'pg';
import type { RequestContext } from '@latchkey/grpc-kit';
import { AppError } from '@latchkey/errors';
import { withTransaction } from '@latchkey/db';
import { jobSubjects } from '@latchkey/jobs-contract';
import { queueEvent } from '@latchkey/domain-events';
import { enqueueJob } from '@latchkey/outbox';
import type { IdentityDeps } from './identity-deps';
import { queueSecurityNotice } from './mail-queue';
import { leaveOrganizationsOf } from './orgs/members';
import { findUserById, type UserRecord } from './user-store';

/**
 * Deletes the account. In the same transaction it queues the `user.deleted`
 * job, so that the posts, TOTP data and provider links of the account are
 * removed even if this process dies right after, and the notice mail to the
 * address the account had. Its mailed tokens go with the row (ON DELETE CASCADE).
 */
export async function deleteUser(deps: IdentityDeps, userId: string, context: RequestContext): Promise<void> {
  await withTransaction(deps.pool, context, async (db) => {
    const user = await findUserById(db, userId, true);
    if (!user) throw new AppError('auth:unauthorized');
    await removeAccount(db, user, 'user', context);
  });
}

/**
 * The deletion of a locked account, in the caller's transaction: its
 * organisations first (one it is the only member of goes with it; being
 * the last owner of one with other members refuses the deletion,
 * org:last_owner), then the row (its mailed tokens and the invitations it
 * sent cascade), the `user.deleted` job and event, and the notice to its
 * address. The user's own deletion and an administrator's.
 */
export async function removeAccount(db: pg.ClientBase, user: UserRecord, reason: 'user' | 'admin', context: RequestContext): Promise<void> {
  await leaveOrganizationsOf(db, user.id, context);
  await db.query('DELETE FROM identity.users WHERE id = $1', [user.id]);
  await enqueueJob(db, jobSubjects.userDeleted, { user_id: user.id }, context);
  await queueEvent(db, 'user.deleted', { userId: user.id, reason }, context);
  // Consumers that mirror sessions (back-channel logout) need not know what a deletion implies.
  await queueEvent(db, 'session.revoked', { userId: user.id, reason: 'account_deleted', sessionIds: [], keptSessionId: '' }, context);
  await queueSecurityNotice(db, user, 'account_deleted', context);
}

/**
 * Deletes up to `limit` accounts never verified and registered before
 * `registeredBefore`, with their cleanup jobs, in one transaction; answers
 * how many went. SKIP LOCKED passes over an account being verified right
 * now, which keeps it. No notice is mailed: the address never proved to be
 * anyone's, and mailing it would let anyone have mail sent to any address.
 */
export async function purgeUnverifiedUsers(
  deps: IdentityDeps,
  input: { registeredBefore: Date; limit: number },
  context: RequestContext,
): Promise<number> {
  if (!Number.isInteger(input.limit) || input.limit < 1 || input.limit > 1_000) {
    throw AppError.validation([{ field: 'limit', message: 'must be an integer from 1 to 1000' }]);
  }
  return withTransaction(deps.pool, context, async (db) => {
    const { rows } = await db.query<{ id: string }>(
      `DELETE FROM identity.users WHERE id IN (
         SELECT id FROM identity.users
          WHERE email_verified_at IS NULL AND created_at < $1
          ORDER BY created_at
          LIMIT $2
          FOR UPDATE SKIP LOCKED
       ) RETURNING id`,
      [input.registeredBefore, input.limit],
    );
    for (const { id } of rows) {
      await enqueueJob(db, jobSubjects.userDeleted, { user_id: id }, context);
      await queueEvent(db, 'user.deleted', { userId: id, reason: 'unverified' }, context);
    }
    return rows.length;
  });
}
