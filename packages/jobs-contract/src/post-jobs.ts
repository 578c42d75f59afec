import { z } from 'zod';

/**
 * Post versions start at 1 and grow by one per edit; a delete carries the
 * version after the last edit. The worker orders jobs of one post by it,
 * since JetStream may redeliver or reorder them.
 */
const postVersion = z.number().int().positive();
const storageKey = z.string().min(1).max(1024);

/**
 * The object key of a post's content, `posts/{post_id}`: one object per
 * post, overwritten by edits. Posts writes it; the worker deletes only keys
 * of this form.
 */
export function postContentKey(postId: string): string {
  return `posts/${postId}`;
}

/**
 * `jobs.search.index`: (re)index a post from its current stored content.
 * Queued by post create and post update.
 */
export const indexPostJobSchema = z.object({
  post_id: z.uuid(),
  version: postVersion,
  title: z.string().min(1),
  /** Where the content is; the worker reads it there, so the job stays small. */
  storage_key: storageKey,
  author_id: z.uuid(),
});

export type IndexPostJob = z.infer<typeof indexPostJobSchema>;

/**
 * `jobs.content.delete` (`delete_content`): remove a deleted
 * post's stored content and its search entry.
 */
export const deleteContentJobSchema = z.object({
  post_id: z.uuid(),
  storage_key: storageKey,
  version: postVersion,
});

export type DeleteContentJob = z.infer<typeof deleteContentJobSchema>;
