import type pg from 'pg';

type Queryable = pg.ClientBase | pg.Pool;

/** A posts row with its author's cached handle. */
export interface PostRecord {
  id: string;
  author_id: string;
  author_handle: string;
  title: string;
  storage_key: string;
  version: number;
  created_at: Date;
  updated_at: Date;
}

/** What a deleted post leaves for its delete_content job. */
export interface DeletedPost {
  id: string;
  storage_key: string;
  version: number;
}

const COLUMNS = `p.id, p.author_id, a.handle AS author_handle, p.title, p.storage_key, p.version, p.created_at, p.updated_at`;

/**
 * Keeps the handle shown with the author's posts (the caller passes it on
 * every create) and answers whether the author's account is being
 * deleted. It always takes the author's row lock, so a create and the
 * account cascade's `markAuthorDeleted` are ordered: either the create
 * commits first and the cascade deletes its post, or the create sees the
 * mark.
 */
export async function upsertAuthor(db: pg.ClientBase, author: { id: string; handle: string }): Promise<{ deleted: boolean }> {
  const { rows } = await db.query<{ deleted_at: Date | null }>(
    `INSERT INTO posts.authors (id, handle) VALUES ($1, $2)
     ON CONFLICT (id) DO UPDATE
        SET handle = CASE WHEN authors.deleted_at IS NULL THEN EXCLUDED.handle ELSE authors.handle END,
            updated_at = CASE WHEN authors.handle IS DISTINCT FROM EXCLUDED.handle THEN now() ELSE authors.updated_at END
     RETURNING deleted_at`,
    [author.id, author.handle],
  );
  return { deleted: rows[0]?.deleted_at != null };
}

/** The first step of the account cascade: from its commit on, no post can be created for the author. */
export async function markAuthorDeleted(db: pg.ClientBase, id: string): Promise<void> {
  await db.query(
    `INSERT INTO posts.authors (id, handle, deleted_at) VALUES ($1, '', now())
     ON CONFLICT (id) DO UPDATE SET handle = '', deleted_at = COALESCE(authors.deleted_at, now()), updated_at = now()`,
    [id],
  );
}

export async function insertPost(
  db: pg.ClientBase,
  post: { id: string; authorId: string; title: string; storageKey: string },
): Promise<PostRecord> {
  const { rows } = await db.query<PostRecord>(
    `WITH p AS (
       INSERT INTO posts.posts (id, author_id, title, storage_key) VALUES ($1, $2, $3, $4) RETURNING *
     )
     SELECT ${COLUMNS} FROM p JOIN posts.authors a ON a.id = p.author_id`,
    [post.id, post.authorId, post.title, post.storageKey],
  );
  return rows[0] as PostRecord;
}

/** One post; `lock` holds its row until the transaction ends, so that edits of one post run one at a time. */
export async function findPost(db: Queryable, id: string, lock = false): Promise<PostRecord | undefined> {
  const { rows } = await db.query<PostRecord>(
    `SELECT ${COLUMNS} FROM posts.posts p JOIN posts.authors a ON a.id = p.author_id WHERE p.id = $1${lock ? ' FOR UPDATE OF p' : ''}`,
    [id],
  );
  return rows[0];
}

/** The posts among `ids` that exist, in no particular order. */
export async function findPosts(db: Queryable, ids: readonly string[]): Promise<PostRecord[]> {
  const { rows } = await db.query<PostRecord>(`SELECT ${COLUMNS} FROM posts.posts p JOIN posts.authors a ON a.id = p.author_id WHERE p.id = ANY($1::uuid[])`, [
    ids,
  ]);
  return rows;
}

export async function postExists(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM posts.posts WHERE id = $1', [id]);
  return (rowCount ?? 0) > 0;
}

/** Records an edit: the new title if given, a new version and updated_at. */
export async function markPostEdited(db: pg.ClientBase, id: string, title: string | undefined): Promise<PostRecord> {
  const { rows } = await db.query<PostRecord>(
    `WITH p AS (
       UPDATE posts.posts SET title = coalesce($2, title), version = version + 1, updated_at = now()
        WHERE id = $1 RETURNING *
     )
     SELECT ${COLUMNS} FROM p JOIN posts.authors a ON a.id = p.author_id`,
    [id, title ?? null],
  );
  return rows[0] as PostRecord;
}

export async function deletePostRow(db: pg.ClientBase, id: string): Promise<void> {
  await db.query('DELETE FROM posts.posts WHERE id = $1', [id]);
}

/**
 * Deletes up to `batchSize` posts of an author, oldest first, and answers
 * what they leave behind. Rows being edited are waited for, not skipped,
 * so that no post survives the cascade.
 */
export async function deleteAuthorPostBatch(db: pg.ClientBase, authorId: string, batchSize: number): Promise<DeletedPost[]> {
  const { rows } = await db.query<DeletedPost>(
    `DELETE FROM posts.posts WHERE id IN (
       SELECT id FROM posts.posts WHERE author_id = $1 ORDER BY id LIMIT $2 FOR UPDATE
     ) RETURNING id, storage_key, version`,
    [authorId, batchSize],
  );
  return rows;
}

/** One page, newest first: `limit` rows after `afterId`, optionally of one author. */
export async function listPostPage(
  db: Queryable,
  page: { afterId: string | undefined; authorId: string | undefined; limit: number },
): Promise<PostRecord[]> {
  const { rows } = await db.query<PostRecord>(
    `SELECT ${COLUMNS} FROM posts.posts p JOIN posts.authors a ON a.id = p.author_id
      WHERE ($1::uuid IS NULL OR p.id < $1::uuid)
        AND ($2::uuid IS NULL OR p.author_id = $2::uuid)
      ORDER BY p.id DESC
      LIMIT $3`,
    [page.afterId ?? null, page.authorId ?? null, page.limit],
  );
  return rows;
}

/** A post as create, get and update answer it: metadata and content. */
export type PostWithContent = PostRecord & { readonly content: string };
