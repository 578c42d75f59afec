import { queueEvent } from '@latchkey/domain-events';
import type { RequestContext } from '@latchkey/grpc-kit';
import { AppError } from '@latchkey/errors';
import { withTransaction } from '@latchkey/db';
import { deleteActionLogsOf, recordPostAction } from './action-log';
import { queueContentDeletion } from './post-jobs';
import { assertValid, checkUuid } from './post-rules';
import { deleteAuthorPostBatch, deletePostRow, findPost, markAuthorDeleted } from './post-store';
import type { PostsDeps } from './posts-deps';

/** Posts deleted per transaction by the account cascade: short transactions, however many posts. */
const CASCADE_BATCH_SIZE = 200;

/**
 * Deletes a post; only its author may. The row, the `post:delete` entry and
 * the `delete_content` job commit together; the worker then removes the
 * object and the search entry. Searches join the posts table, so the post
 * stops showing at once, before the job runs.
 */
export async function deletePost(
  deps: PostsDeps,
  input: { actorId: string; postId: string },
  context: RequestContext,
): Promise<void> {
  assertValid(checkUuid(input.actorId, 'actor_id'), checkUuid(input.postId, 'id'));
  await withTransaction(deps.pool, context, async (db) => {
    const post = await findPost(db, input.postId, true);
    if (!post) throw new AppError('post:not_found');
    if (post.author_id !== input.actorId.toLowerCase()) throw new AppError('post:forbidden');
    await deletePostRow(db, post.id);
    await recordPostAction(db, { actorId: post.author_id, action: 'post:delete', postId: post.id });
    await queueContentDeletion(db, post, context);
    await queueEvent(db, 'post.deleted', { postId: post.id, authorId: post.author_id }, context);
  });
}

/**
 * The account-deletion cascade (docs/architecture.md, "Account deletion":
 * author deleted, posts deleted). Every post goes as in deletePost, in batches, each with its
 * `delete_content` job, but without `post:delete` entries: the user's
 * action log and cached handle are removed with the last batch, since
 * nothing can read them once the account is gone. Safe to call again after
 * a failure: it continues with what is left. Answers the posts it deleted.
 */
export async function deleteUserPosts(deps: PostsDeps, userId: string, context: RequestContext): Promise<number> {
  assertValid(checkUuid(userId, 'user_id'));
  const authorId = userId.toLowerCase();
  // Committed first and on its own: every create after it is refused, and
  // one that held the author's row lock before it has committed its post,
  // which the batches below then delete.
  await withTransaction(deps.pool, context, (db) => markAuthorDeleted(db, authorId));
  let total = 0;
  for (;;) {
    const deleted = await withTransaction(deps.pool, context, async (db) => {
      const batch = await deleteAuthorPostBatch(db, authorId, CASCADE_BATCH_SIZE);
      for (const post of batch) {
        await queueContentDeletion(db, post, context);
        await queueEvent(db, 'post.deleted', { postId: post.id, authorId }, context);
      }
      if (batch.length < CASCADE_BATCH_SIZE) await deleteActionLogsOf(db, authorId);
      return batch.length;
    });
    total += deleted;
    if (deleted < CASCADE_BATCH_SIZE) return total;
  }
}
