import type { RequestContext } from '@latchkey/grpc-kit';
import type pg from 'pg';
import { jobSubjects, type DeleteContentJob, type IndexPostJob } from '@latchkey/jobs-contract';
import { enqueueJob } from '@latchkey/outbox';
import type { PostRecord } from './post-store';

/** Queues (re)indexing of a post's current version in the caller's transaction. */
export async function queueIndexJob(db: pg.ClientBase, post: PostRecord, context: RequestContext): Promise<void> {
  const job: IndexPostJob = {
    post_id: post.id,
    version: post.version,
    title: post.title,
    storage_key: post.storage_key,
    author_id: post.author_id,
  };
  await enqueueJob(db, jobSubjects.indexPost, job, context);
}

/**
 * Queues removal of a deleted post's content and search entry. The delete
 * is one version past the post's last, so that the worker's tombstone
 * outranks every index job of the post, however late it arrives.
 */
export async function queueContentDeletion(
  db: pg.ClientBase,
  post: { id: string; storage_key: string; version: number },
  context: RequestContext,
): Promise<void> {
  const job: DeleteContentJob = { post_id: post.id, storage_key: post.storage_key, version: post.version + 1 };
  await enqueueJob(db, jobSubjects.deleteContent, job, context);
}
