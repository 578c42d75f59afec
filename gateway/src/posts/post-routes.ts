import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSession, sessionOf, type SessionAccess } from '../sessions/session-auth';
import type { IdentityClient, PostsClient } from '../service-clients';
import type { UsageLimits } from '../limits/usage-limits';
import type { PostListCache } from './post-list-cache';
import { postPageView, postView, type PostPageView } from './post-view';
import {
  createPostBody,
  postIdParams,
  postListQuery,
  postPageSchema,
  postSchema,
  searchQuery,
  updatePostBody,
} from './post-schemas';
import { noContent, problemResponses } from '../http/problem-schema';
import { AppError } from '@latchkey/errors';

/** What the post routes use. */
export type PostRoutesDeps = SessionAccess & {
  readonly identity: IdentityClient;
  readonly posts: PostsClient;
  readonly usage: UsageLimits;
  readonly newestPosts: PostListCache<PostPageView>;
  /** POSTS_MAX_CONTENT_BYTES, which sizes the body limit of post writes. */
  readonly maxContentBytes: number;
};

/** /v0/posts and /v0/search/posts. */
export function postRoutes(deps: PostRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const session = requireSession(deps);
    const tags = ['posts'];
    // Content just over the limit must still parse, so that it gets a 400 naming the field (docs/api.md, "Paths and bodies").
    const bodyLimit = 2 * deps.maxContentBytes + 64 * 1024;

    app.post(
      '/v0/posts',
      {
        bodyLimit,
        schema: {
          tags,
          summary: 'Write a post.',
          body: createPostBody,
          response: { 201: postSchema, ...problemResponses(400, 401, 413, 429, 503) },
        },
        onRequest: session,
      },
      async (request, reply) => {
        const { userId, handle } = sessionOf(request);
        await deps.usage.assertPostWriteAllowed(userId);
        // Sessions stored before they kept the handle ask identity, until they expire.
        const authorHandle = handle ?? (await deps.identity.getUser({ userId }, request.ctx)).user!.handle;
        const { post } = await deps.posts.createPost(
          { authorId: userId, authorHandle, title: request.body.title, content: request.body.content },
          request.ctx,
        );
        return reply.code(201).send(postView(post!));
      },
    );

    app.get(
      '/v0/posts',
      {
        schema: {
          tags,
          summary: 'Posts, newest first.',
          querystring: postListQuery,
          response: { 200: postPageSchema, ...problemResponses(400, 503) },
        },
      },
      async (request) => {
        const { limit, cursor, author_id } = request.query;
        const fetchPage = async () =>
          postPageView(await deps.posts.listPosts({ limit, cursor: cursor ?? '', authorId: author_id }, request.ctx));
        // The newest page is what most readers ask for, again and again.
        return cursor === undefined && author_id === undefined ? deps.newestPosts.newest(limit, fetchPage) : fetchPage();
      },
    );

    app.get(
      '/v0/posts/:id',
      {
        schema: {
          tags,
          summary: 'One post with its content.',
          params: postIdParams,
          response: { 200: postSchema, ...problemResponses(400, 404, 503) },
        },
      },
      async (request) => {
        const { post } = await deps.posts.getPost({ postId: request.params.id }, request.ctx);
        return postView(post!);
      },
    );

    app.patch(
      '/v0/posts/:id',
      {
        bodyLimit,
        schema: {
          tags,
          summary: 'Change the title and/or content of one’s own post.',
          params: postIdParams,
          body: updatePostBody,
          response: { 200: postSchema, ...problemResponses(400, 401, 403, 404, 413, 429, 503) },
        },
        onRequest: session,
      },
      async (request) => {
        const { title, content } = request.body;
        if (title === undefined && content === undefined) {
          throw AppError.validation([{ field: 'body', message: 'must contain title or content' }]);
        }
        await deps.usage.assertPostWriteAllowed(sessionOf(request).userId);
        const { post } = await deps.posts.updatePost(
          { actorId: sessionOf(request).userId, postId: request.params.id, title, content },
          request.ctx,
        );
        return postView(post!);
      },
    );

    app.delete(
      '/v0/posts/:id',
      {
        schema: {
          tags,
          summary: 'Delete one’s own post; its stored content and index entry follow shortly.',
          params: postIdParams,
          response: { ...noContent, ...problemResponses(400, 401, 403, 404, 503) },
        },
        onRequest: session,
      },
      async (request, reply) => {
        await deps.posts.deletePost({ actorId: sessionOf(request).userId, postId: request.params.id }, request.ctx);
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/v0/search/posts',
      {
        schema: {
          tags,
          summary: 'Posts matching words of their title or content, best match first (eventually consistent).',
          querystring: searchQuery,
          response: { 200: postPageSchema, ...problemResponses(400, 429, 503) },
        },
        preHandler: deps.usage.searchPerClient,
      },
      async (request) => {
        const { q, limit, cursor } = request.query;
        return postPageView(await deps.posts.searchPosts({ query: q, limit, cursor: cursor ?? '' }, request.ctx));
      },
    );
  };
}
