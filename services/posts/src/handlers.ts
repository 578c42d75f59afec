import type { postsV1 } from '@latchkey/contracts';
import type { ServiceHandlers } from '@latchkey/grpc-kit';
import { listActionLogs } from './action-log';
import { createPost } from './create-post';
import { deletePost, deleteUserPosts } from './delete-post';
import { updatePost } from './edit-post';
import { toActionLogMessage, toPostMessage, toPostSummary } from './post-message';
import type { PostsDeps } from './posts-deps';
import { getPost, listPosts } from './read-posts';
import { searchPosts } from './search-query';

type PostsHandlers = ServiceHandlers<typeof postsV1.PostsServiceService>;

/**
 * One thin function per RPC: unpack the request, call the operation, shape
 * the reply. Writes record their position for the replica reads and
 * publish a new list version before they answer.
 */
export function postsHandlers(deps: PostsDeps): PostsHandlers {
  return {
    async createPost(request, context) {
      const post = await createPost(deps, request, context);
      await deps.reads.written();
      await deps.listVersion.changed();
      return { post: toPostMessage(post) };
    },
    async getPost({ postId }, context) {
      return { post: toPostMessage(await getPost(deps, postId, context)) };
    },
    async updatePost(request, context) {
      const post = await updatePost(deps, request, context);
      await deps.reads.written();
      await deps.listVersion.changed();
      return { post: toPostMessage(post) };
    },
    async deletePost(request, context) {
      await deletePost(deps, request, context);
      await deps.reads.written();
      await deps.listVersion.changed();
      return {};
    },
    async listPosts(request) {
      const page = await listPosts(deps, request);
      return { items: page.items.map(toPostSummary), nextCursor: page.nextCursor };
    },
    async searchPosts(request, context) {
      const page = await searchPosts(deps.search, request, context);
      return { items: page.items.map(toPostSummary), nextCursor: page.nextCursor };
    },
    async listActionLogs(request) {
      const page = await listActionLogs(deps.pool, request);
      return { items: page.items.map(toActionLogMessage), nextCursor: page.nextCursor };
    },
    async deleteUserPosts({ userId }, context) {
      const deletedPosts = await deleteUserPosts(deps, userId, context);
      if (deletedPosts > 0) {
        await deps.reads.written();
        await deps.listVersion.changed();
      }
      return { deletedPosts };
    },
  };
}
