import type pg from 'pg';
import { searchIndex } from '@latchkey/jobs-contract';
import type { Logger } from '@latchkey/telemetry';
import type { JobOutcome } from './job-consumer';
import { startPeriodicTask, type PeriodicTask } from '@latchkey/runtime';

/**
 * How much of a post's content is indexed, in characters. PostgreSQL
 * refuses a tsvector over 1 MiB, which a 1 MiB post of distinct words
 * reaches; 200 000 characters stay far below it in every shape tried
 * (about 370 KiB for distinct four-letter words). Words further on are
 * not found; the title always is.
 */
export const MAX_INDEXED_CONTENT_CHARS = 200_000;

/**
 * How long a tombstone outlives its post. Index jobs of a deleted post
 * arrive within minutes (ack wait and retries); one that comes later finds
 * the content gone from the object store and does nothing, and searches
 * join the posts table anyway. The tombstone only has to cover the window
 * in which a late index job could still read the content.
 */
export const TOMBSTONE_RETENTION_HOURS = 24;

const PURGE_INTERVAL_MS = 60 * 60 * 1_000;
const TABLE = searchIndex.postDocuments;

/** What the index holds for a post: which version, and whether it is a tombstone. */
interface DocumentState {
  version: number;
  deleted: boolean;
}

async function findDocumentState(pool: pg.Pool, postId: string): Promise<DocumentState | undefined> {
  const { rows } = await pool.query<{ version: string; deleted: boolean }>(
    `SELECT version, deleted FROM ${TABLE} WHERE post_id = $1`,
    [postId],
  );
  const row = rows[0];
  return row && { version: Number(row.version), deleted: row.deleted };
}

/**
 * What an index job of `version` would do given what the index holds:
 * nothing when the index has that version already (a redelivery), nothing
 * when it has a newer one or a tombstone (a reordered or late job).
 */
export function staleIndexOutcome(state: DocumentState | undefined, version: number): JobOutcome | undefined {
  if (!state) return undefined;
  if (state.deleted || state.version > version) return 'superseded';
  if (state.version === version) return 'duplicate';
  return undefined;
}

/** Answers 'duplicate' or 'superseded' when an index job of `version` need not run, before it reads any content. */
export async function checkIndexJobStale(pool: pg.Pool, postId: string, version: number): Promise<JobOutcome | undefined> {
  return staleIndexOutcome(await findDocumentState(pool, postId), version);
}

/**
 * Writes the document of one post version, unless the index already holds
 * that version or a newer one, or a tombstone: a deleted post never comes
 * back, since post ids are never reused. The condition sits in the upsert
 * itself, so two jobs of one post racing each other settle correctly.
 */
export async function upsertPostDocument(
  pool: pg.Pool,
  document: { postId: string; authorId: string; title: string; content: string; version: number },
): Promise<JobOutcome> {
  const { rowCount } = await pool.query(
    `INSERT INTO ${TABLE} AS d (post_id, author_id, title, document, version, deleted, updated_at)
     VALUES ($1, $2, $3,
             setweight(to_tsvector($6::regconfig, $3), 'A') || setweight(to_tsvector($6::regconfig, left($4, $7)), 'B'),
             $5, false, now())
     ON CONFLICT (post_id) DO UPDATE
        SET author_id = EXCLUDED.author_id, title = EXCLUDED.title, document = EXCLUDED.document,
            version = EXCLUDED.version, updated_at = now()
      WHERE NOT d.deleted AND d.version < EXCLUDED.version`,
    [
      document.postId,
      document.authorId,
      document.title,
      document.content,
      document.version,
      searchIndex.textSearchConfig,
      MAX_INDEXED_CONTENT_CHARS,
    ],
  );
  if ((rowCount ?? 0) > 0) return 'completed';
  return (await checkIndexJobStale(pool, document.postId, document.version)) ?? 'superseded';
}

/**
 * Replaces a post's document with a tombstone carrying the delete's
 * version. Idempotent: a second delete keeps the tombstone and its age.
 */
export async function writeTombstone(pool: pg.Pool, postId: string, version: number): Promise<void> {
  await pool.query(
    `INSERT INTO ${TABLE} AS d (post_id, author_id, title, document, version, deleted, updated_at)
     VALUES ($1, NULL, '', ''::tsvector, $2, true, now())
     ON CONFLICT (post_id) DO UPDATE
        SET author_id = NULL, title = '', document = ''::tsvector, deleted = true,
            version = greatest(d.version, EXCLUDED.version),
            updated_at = CASE WHEN d.deleted THEN d.updated_at ELSE now() END`,
    [postId, version],
  );
}

/** Deletes tombstones older than the retention; answers how many went. */
export async function purgeTombstones(pool: pg.Pool): Promise<number> {
  const { rowCount } = await pool.query(
    `DELETE FROM ${TABLE} WHERE deleted AND updated_at < now() - make_interval(hours => $1)`,
    [TOMBSTONE_RETENTION_HOURS],
  );
  return rowCount ?? 0;
}

/**
 * Purges now and then hourly. Every replica runs it; it is cheap (a partial
 * index in PostgreSQL, a filtered delete-by-query in OpenSearch) and harmless twice.
 */
export function startTombstonePurge(index: { purgeTombstones(): Promise<number> }, logger: Logger): PeriodicTask {
  return startPeriodicTask(
    {
      description: 'purging search tombstones',
      intervalMs: PURGE_INTERVAL_MS,
      async run() {
        const purged = await index.purgeTombstones();
        if (purged > 0) logger.info({ purged }, 'search tombstones purged');
      },
    },
    logger,
  );
}
