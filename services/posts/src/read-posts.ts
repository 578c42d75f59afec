import type { RequestContext } from '@latchkey/grpc-kit';
import { AppError } from '@latchkey/errors';
import { decodeIdCursor, encodeIdCursor, toPage } from './post-cursor';
import { assertValid, checkPageSize, checkUuid, pageSize } from './post-rules';
import { findPost, listPostPage, postExists, type PostRecord, type PostWithContent } from './post-store';
import type { PostsDeps } from './posts-deps';

/**
 * One post with its content. The row and the object are read one after
 * the other, not atomically: a reader racing an edit may see the new
 * content with the old title for a moment, which the next read mends.
 */
export async function getPost(deps: PostsDeps, postId: string, context: RequestContext): Promise<PostWithContent> {
  assertValid(checkUuid(postId, 'id'));
  const post = await deps.reads.read(
    (replica) => findPost(replica, postId),
    () => findPost(deps.pool, postId),
  );
  if (!post) throw new AppError('post:not_found');
  const kept = deps.contentCache.get(post);
  if (kept !== undefined) return { ...post, content: kept };
  const content = await deps.content.read(post.storage_key, { signal: context.signal });
  if (content === undefined) {
    // Deleted between the two reads: the row went, then the worker removed the object.
    if (!(await postExists(deps.pool, post.id))) throw new AppError('post:not_found');
    throw new Error(`the content of post ${post.id} is missing from the object store`);
  }
  deps.contentCache.set(post, content);
  return { ...post, content };
}

/** One page of posts, newest first, optionally of one author. */
export async function listPosts(
  deps: PostsDeps,
  request: { limit?: number | undefined; cursor: string; authorId?: string | undefined },
): Promise<{ items: PostRecord[]; nextCursor: string }> {
  assertValid(checkPageSize(request.limit), request.authorId === undefined ? [] : checkUuid(request.authorId, 'author_id'));
  const limit = pageSize(request.limit);
  const page = { afterId: decodeIdCursor(request.cursor), authorId: request.authorId?.toLowerCase(), limit: limit + 1 };
  const rows = await deps.reads.read(
    (replica) => listPostPage(replica, page),
    () => listPostPage(deps.pool, page),
  );
  return toPage(rows, limit, (post) => encodeIdCursor(post.id));
}
