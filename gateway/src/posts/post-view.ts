import type { postsV1 } from '@latchkey/contracts';
import type { z } from 'zod';
import type { postPageSchema, postSchema, postSummarySchema } from './post-schemas';

export type PostPageView = z.output<typeof postPageSchema>;

const iso = (date: Date | undefined): string => (date ?? new Date(0)).toISOString();

export function postSummaryView(post: postsV1.PostSummary): z.output<typeof postSummarySchema> {
  return {
    id: post.id,
    author: { id: post.author?.id ?? '', handle: post.author?.handle ?? '' },
    title: post.title,
    created_at: iso(post.createdAt),
    updated_at: iso(post.updatedAt),
  };
}

export function postView(post: postsV1.Post): z.output<typeof postSchema> {
  return { ...postSummaryView(post), content: post.content };
}

export function postPageView(page: { items: postsV1.PostSummary[]; nextCursor: string }): PostPageView {
  return { items: page.items.map(postSummaryView), next_cursor: nextCursor(page.nextCursor) };
}

/** The service marks the last page with an empty cursor; the API with null. */
export function nextCursor(cursor: string): string | null {
  return cursor === '' ? null : cursor;
}
