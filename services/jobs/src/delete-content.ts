import type { postsV1 } from '@latchkey/contracts';
import { AppError } from '@latchkey/errors';
import type { ServiceClient } from '@latchkey/grpc-kit';
import { deleteContentJobSchema, jobSubjects, postContentKey, type DeleteContentJob } from '@latchkey/jobs-contract';
import type { ContentStore } from '@latchkey/object-store';
import type { JobContext, JobDefinition, JobOutcome } from './job-consumer';
import type { PostSearchIndex } from './post-search-index';

export interface DeleteContentDeps {
  readonly searchIndex: PostSearchIndex;
  readonly content: ContentStore;
  /** Asked whether the post still exists: the job alone is no proof that it was deleted. */
  readonly posts: ServiceClient<typeof postsV1.PostsServiceService>;
}

/** Whether posts still has the post (a deleted one, and an orphan whose row never committed, it has not). */
async function postExists(deps: DeleteContentDeps, postId: string, context: JobContext): Promise<boolean> {
  try {
    await deps.posts.getPost({ postId }, context);
    return true;
  } catch (error) {
    if (error instanceof AppError && error.code === 'post:not_found') return false;
    throw error;
  }
}

/**
 * `delete_content`: takes a deleted post out of the search index
 * and deletes its stored content. The tombstone comes first, so that from
 * then on no index job of the post can write it back, even one that read
 * the content just before the object went. Both steps are idempotent, so a
 * redelivery, or a retry after the second step failed, does no harm.
 */
async function deleteContent(deps: DeleteContentDeps, job: DeleteContentJob, context: JobContext): Promise<JobOutcome> {
  // Only the content of a post that is gone, and only under that post's own key: a forged or
  // misrouted job must not delete another object of the bucket, or a live post's content.
  if (job.storage_key !== postContentKey(job.post_id) || (await postExists(deps, job.post_id, context))) {
    context.logger.warn({ post_id: job.post_id }, 'delete_content for a live post or a foreign key; nothing deleted');
    return 'refused';
  }
  await deps.searchIndex.tombstone(job.post_id, job.version);
  await deps.content.remove(job.storage_key, { signal: context.signal });
  return 'completed';
}

/** The `jobs.content.delete` job as the consumer runs it. */
export function deleteContentJob(deps: DeleteContentDeps): JobDefinition<DeleteContentJob> {
  return {
    name: 'content_delete',
    subject: jobSubjects.deleteContent,
    schema: deleteContentJobSchema,
    handle: (job, context) => deleteContent(deps, job, context),
    redactForDeadLetter: (payload) => payload,
    retries: 'cleanup_window',
  };
}
