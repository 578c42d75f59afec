import { indexPostJobSchema, jobSubjects, type IndexPostJob } from '@latchkey/jobs-contract';
import type { ContentStore } from '@latchkey/object-store';
import type { JobContext, JobDefinition, JobOutcome } from './job-consumer';
import type { PostSearchIndex } from './post-search-index';

export interface IndexPostDeps {
  readonly searchIndex: PostSearchIndex;
  readonly content: ContentStore;
}

/**
 * Indexes one version of a post from the content in the object store.
 * Safe to redeliver and reorder: the version decides (post-search-index.ts).
 * The object always holds the newest content, so an older job may index
 * newer content under its older title; the newer job, queued by the edit
 * that wrote that content, then replaces both.
 */
async function indexPost(deps: IndexPostDeps, job: IndexPostJob, context: JobContext): Promise<JobOutcome> {
  // Spares the object store a read for redeliveries and late jobs.
  const stale = await deps.searchIndex.staleOutcome(job.post_id, job.version);
  if (stale) return stale;
  const content = await deps.content.read(job.storage_key, { signal: context.signal });
  if (content === undefined) {
    context.logger.info('post content is gone; the post was deleted meanwhile');
    return 'superseded';
  }
  return deps.searchIndex.upsert({
    postId: job.post_id,
    authorId: job.author_id,
    title: job.title,
    content,
    version: job.version,
  });
}

/** The `jobs.search.index` job as the consumer runs it. */
export function indexPostJob(deps: IndexPostDeps): JobDefinition<IndexPostJob> {
  return {
    name: 'search_index',
    subject: jobSubjects.indexPost,
    schema: indexPostJobSchema,
    handle: (job, context) => indexPost(deps, job, context),
    // Ids, a version, a key and a public title: nothing secret.
    redactForDeadLetter: (payload) => payload,
  };
}
