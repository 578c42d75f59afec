import { queueEvent } from '@latchkey/domain-events';
import type { RequestContext } from '@latchkey/grpc-kit';
import { uuidv7 } from 'uuidv7';
import { AppError } from '@latchkey/errors';
import { withTransaction } from '@latchkey/db';
import { postContentKey } from '@latchkey/jobs-contract';
import { recordPostAction } from './action-log';
import { queueContentDeletion, queueIndexJob } from './post-jobs';
import { assertValid, checkAuthorHandle, checkContent, checkTitle, checkUuid, normalizeTitle } from './post-rules';
import { insertPost, upsertAuthor, type PostWithContent } from './post-store';
import type { PostsDeps } from './posts-deps';

/** The version a new post starts at; its orphan's delete job carries the next one. */
const FIRST_VERSION = 1;

/**
 * How long the cleanup of an orphan may take. It runs after the request
 * failed, often because its budget ran out, so it gets a budget of its own:
 * the caller has its answer, but the object must still go.
 */
const ORPHAN_CLEANUP_BUDGET_MS = 5_000;

/**
 * Creates a post. The content goes to the object store first: a store that
 * is down fails the call with `service:unavailable` before any row exists.
 * Then one transaction writes the metadata, the author's handle, the
 * `post:create` entry and the index job, so they exist together or not at all.
 */
export async function createPost(
  deps: PostsDeps,
  input: { authorId: string; authorHandle: string; title: string; content: string },
  context: RequestContext,
): Promise<PostWithContent> {
  assertValid(
    checkUuid(input.authorId, 'author_id'),
    checkAuthorHandle(input.authorHandle),
    checkTitle(input.title),
    checkContent(input.content, deps.maxContentBytes),
  );
  const authorId = input.authorId.toLowerCase();
  const id = uuidv7();
  const storageKey = postContentKey(id);
  await deps.content.write(storageKey, input.content, { signal: context.signal });

  // Set once the work is done and only COMMIT is left: a failure after that
  // point may have committed all the same (a connection lost during COMMIT).
  let committing = false;
  try {
    const post = await withTransaction(deps.pool, context, async (db) => {
      const author = await upsertAuthor(db, { id: authorId, handle: input.authorHandle });
      // The account is being deleted: its session may still be in flight, but its posts must not outlive it.
      if (author.deleted) throw new AppError('auth:unauthorized');
      const inserted = await insertPost(db, { id, authorId, title: normalizeTitle(input.title), storageKey });
      await recordPostAction(db, { actorId: authorId, action: 'post:create', postId: id });
      await queueIndexJob(db, inserted, context);
      await queueEvent(db, 'post.created', { postId: inserted.id, authorId: inserted.author_id }, context);
      committing = true;
      return inserted;
    });
    return { ...post, content: input.content };
  } catch (error) {
    if (committing) {
      // Deleting the content of a post that may exist would lose data; an
      // object too many only costs storage.
      context.logger.warn({ err: error, key: storageKey }, 'post commit outcome unknown; its content is kept');
    } else {
      await discardOrphanContent(deps, { id, storageKey }, context);
    }
    throw error;
  }
}

/**
 * Removes content whose metadata transaction rolled back. Deleting the
 * object at once is the first try: the store answered a moment ago, while
 * the database, the usual reason for the rollback, may well be down. If
 * the store refuses, a `delete_content` job written on its own (the
 * rollback took the transaction's outbox rows with it) hands the object to
 * the worker, which works whenever the database does (a constraint
 * violation, a serialization failure). If that fails too, the key is
 * logged: an object without a row is never served or indexed, only kept.
 */
async function discardOrphanContent(
  deps: PostsDeps,
  orphan: { id: string; storageKey: string },
  context: RequestContext,
): Promise<void> {
  const budget = { deadline: Date.now() + ORPHAN_CLEANUP_BUDGET_MS, signal: AbortSignal.timeout(ORPHAN_CLEANUP_BUDGET_MS) };
  try {
    await deps.content.remove(orphan.storageKey, budget);
    return;
  } catch (error) {
    context.logger.warn({ err: error, key: orphan.storageKey }, 'could not delete orphaned post content; queueing its deletion');
  }
  try {
    await withTransaction(deps.pool, budget, (db) =>
      queueContentDeletion(db, { id: orphan.id, storage_key: orphan.storageKey, version: FIRST_VERSION }, context),
    );
  } catch (error) {
    context.logger.error({ err: error, key: orphan.storageKey }, 'orphaned post content left in the object store');
  }
}
