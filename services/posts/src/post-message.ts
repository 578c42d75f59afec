import type { postsV1 } from '@latchkey/contracts';
import type { ActionLogRecord } from './action-log';
import type { PostRecord, PostWithContent } from './post-store';

/** A post as lists show it: never the storage key or version, which are this service's business. */
export function toPostSummary(post: PostRecord): postsV1.PostSummary {
  return {
    id: post.id,
    author: { id: post.author_id, handle: post.author_handle },
    title: post.title,
    createdAt: post.created_at,
    updatedAt: post.updated_at,
  };
}

export function toPostMessage(post: PostWithContent): postsV1.Post {
  return { ...toPostSummary(post), content: post.content };
}

export function toActionLogMessage(entry: ActionLogRecord): postsV1.ActionLog {
  return {
    id: entry.id,
    action: entry.action,
    resourceType: entry.resource_type,
    resourceId: entry.resource_id,
    createdAt: entry.created_at,
  };
}
