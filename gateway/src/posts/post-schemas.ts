import { z } from 'zod';
import { timestamp } from '../http/fields';

const author = z.object({ id: z.uuid(), handle: z.string() });

export const postSummarySchema = z
  .object({ id: z.uuid(), author, title: z.string(), created_at: timestamp, updated_at: timestamp })
  .meta({ id: 'PostSummary' });

export const postSchema = postSummarySchema.extend({ content: z.string() }).meta({ id: 'Post' });

export const postPageSchema = z.object({ items: z.array(postSummarySchema), next_cursor: z.string().nullable() });

export const actionLogPageSchema = z.object({
  items: z.array(
    z
      .object({
        id: z.uuid(),
        action: z.enum(['post:create', 'post:edit', 'post:delete']),
        resource_type: z.literal('post'),
        resource_id: z.uuid(),
        created_at: timestamp,
      })
      .meta({ id: 'ActionLog' }),
  ),
  next_cursor: z.string().nullable(),
});

/** Types only; the lengths are the posts service's rules, which answer with field errors. */
export const createPostBody = z.object({
  title: z.string().describe('1-200 characters after trimming; stored trimmed.'),
  content: z.string().describe('1 byte to POSTS_MAX_CONTENT_BYTES (1 MiB) of UTF-8.'),
});

export const updatePostBody = z.object({ title: z.string().optional(), content: z.string().optional() });

export const postIdParams = z.object({ id: z.uuid('must be a UUID') });

const limit = z.coerce.number().int('must be a whole number').min(1, 'must be 1-100').max(100, 'must be 1-100');
const cursor = z.string().min(1).max(512).describe('Opaque; from next_cursor of the previous page.');

export const postListQuery = z.object({ limit: limit.optional(), cursor: cursor.optional(), author_id: z.uuid('must be a UUID').optional() });
export const searchQuery = z.object({
  q: z
    .string()
    .trim()
    .min(1, 'must be 1-200 characters')
    .max(200, 'must be 1-200 characters')
    .describe('Web-search syntax; at most 16 words (the posts service counts them).'),
  limit: limit.optional(),
  cursor: cursor.optional(),
});
export const pageQuery = z.object({ limit: limit.optional(), cursor: cursor.optional() });
