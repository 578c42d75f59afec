import type pg from 'pg';
import { deleteContentJobSchema, jobSubjects, type DeleteContentJob } from '@latchkey/jobs-contract';
import type { ContentStore } from '@latchkey/object-store';
import type { JobContext, JobDefinition, JobOutcome } from './job-consumer';
import { writeTombstone } from './search-index';

export interface DeleteContentDeps {
  readonly pool: pg.Pool;
  readonly content: ContentStore;
}

/**
 * `delete_content`: takes a deleted post out of the search index
 * and deletes its stored content. The tombstone comes first, so that from
 * then on no index job of the post can write it back, even one that read
 * the content just before the object went. Both steps are idempotent, so a
 * redelivery, or a retry after the second step failed, does no harm.
 */
async function deleteContent(deps: DeleteContentDeps, job: DeleteContentJob, context: JobContext): Promise<JobOutcome> {
  await writeTombstone(deps.pool, job.post_id, job.version);
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
  };
}
