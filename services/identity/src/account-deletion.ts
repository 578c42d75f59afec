import type { RequestContext } from '@latchkey/grpc-kit';
import { AppError } from '@latchkey/errors';
import { withTransaction } from '@latchkey/db';
import { jobSubjects } from '@latchkey/jobs-contract';
import { enqueueJob } from '@latchkey/outbox';
import type { IdentityDeps } from './identity-deps';
import { queueSecurityNotice } from './mail-queue';
import { findUserById } from './user-store';

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
    await db.query('DELETE FROM users WHERE id = $1', [user.id]);
    await enqueueJob(db, jobSubjects.userDeleted, { user_id: user.id }, { requestId: context.requestId });
    await queueSecurityNotice(db, user, 'account_deleted', context);
  });
}
