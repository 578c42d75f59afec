import { queueEvent } from '@latchkey/domain-events';
import type { RequestContext } from '@latchkey/grpc-kit';
import { AppError, type FieldError } from '@latchkey/errors';
import { withTransaction } from '@latchkey/db';
import { recordPostAction } from './action-log';
import { queueIndexJob } from './post-jobs';
import { assertValid, checkContent, checkTitle, checkUuid, normalizeTitle } from './post-rules';
import { findPost, markPostEdited, type PostWithContent } from './post-store';
import type { PostsDeps } from './posts-deps';

/**
 * Changes a post's title, content or both; only its author may. The row is
 * locked first, so that two edits of one post run one after the other and
 * the title and content they leave come from the same edit. New content
 * overwrites the object while the lock is held, then the row gets a new
 * version, the `post:edit` entry and the index job in the same
 * transaction. A store that is down fails the edit before anything
 * changed. Between the overwrite and the commit a reader may see the new
 * content with the old title; if the commit itself fails after the
 * overwrite, the content is new and the title old until the edit is
 * retried. The key stays `posts/{id}` (`postContentKey` of
 * @latchkey/jobs-contract), so there is no older object to fall back to.
 */
export async function updatePost(
  deps: PostsDeps,
  input: { actorId: string; postId: string; title?: string | undefined; content?: string | undefined },
  context: RequestContext,
): Promise<PostWithContent> {
  const nothingToChange: FieldError[] =
    input.title === undefined && input.content === undefined ? [{ field: 'title', message: 'or content is required' }] : [];
  assertValid(
    checkUuid(input.actorId, 'actor_id'),
    checkUuid(input.postId, 'id'),
    input.title === undefined ? [] : checkTitle(input.title),
    input.content === undefined ? [] : checkContent(input.content, deps.maxContentBytes),
    nothingToChange,
  );
  return withTransaction(deps.pool, context, async (db) => {
    const current = await findPost(db, input.postId, true);
    if (!current) throw new AppError('post:not_found');
    if (current.author_id !== input.actorId.toLowerCase()) throw new AppError('post:forbidden');
    let content = input.content;
    if (content === undefined) {
      // Read under the lock, so that the answer matches the committed state
      // and a store that is down rolls the edit back instead of half-answering.
      content = await deps.content.read(current.storage_key, { signal: context.signal });
      if (content === undefined) throw new Error(`the content of post ${current.id} is missing from the object store`);
    } else {
      await deps.content.write(current.storage_key, content, { signal: context.signal });
    }
    const edited = await markPostEdited(db, current.id, input.title === undefined ? undefined : normalizeTitle(input.title));
    await recordPostAction(db, { actorId: edited.author_id, action: 'post:edit', postId: edited.id });
    await queueIndexJob(db, edited, context);
    await queueEvent(db, 'post.updated', { postId: edited.id, authorId: edited.author_id }, context);
    return { ...edited, content };
  });
}
