import type pg from 'pg';
import { uuidv7 } from 'uuidv7';
import { decodeIdCursor, encodeIdCursor, toPage } from './post-cursor';
import { assertValid, checkPageSize, checkUuid, pageSize } from './post-rules';

/** The actions recorded in action_logs (`GET /v0/users/me/action-logs`, docs/api.md, "Accounts"). */
export type PostAction = 'post:create' | 'post:edit' | 'post:delete';

/** An action_logs row. */
export interface ActionLogRecord {
  id: string;
  action: PostAction;
  resource_type: 'post';
  resource_id: string;
  created_at: Date;
}

/** Records an action in the caller's transaction, so it exists exactly when the change commits. */
export async function recordPostAction(
  db: pg.ClientBase,
  entry: { actorId: string; action: PostAction; postId: string },
): Promise<void> {
  await db.query(
    `INSERT INTO posts.action_logs (id, actor_id, action, resource_type, resource_id) VALUES ($1, $2, $3, 'post', $4)`,
    [uuidv7(), entry.actorId, entry.action, entry.postId],
  );
}

/** One page of a user's entries, newest first (ids are UUIDv7, so by id). */
export async function listActionLogPage(
  db: pg.Pool,
  page: { actorId: string; afterId: string | undefined; limit: number },
): Promise<ActionLogRecord[]> {
  const { rows } = await db.query<ActionLogRecord>(
    `SELECT id, action, resource_type, resource_id, created_at FROM posts.action_logs
      WHERE actor_id = $1 AND ($2::uuid IS NULL OR id < $2::uuid)
      ORDER BY id DESC
      LIMIT $3`,
    [page.actorId, page.afterId ?? null, page.limit],
  );
  return rows;
}

export async function deleteActionLogsOf(db: pg.ClientBase, actorId: string): Promise<void> {
  await db.query('DELETE FROM posts.action_logs WHERE actor_id = $1', [actorId]);
}

/** One page of what a user did, newest first. */
export async function listActionLogs(
  pool: pg.Pool,
  request: { userId: string; limit?: number | undefined; cursor: string },
): Promise<{ items: ActionLogRecord[]; nextCursor: string }> {
  assertValid(checkUuid(request.userId, 'user_id'), checkPageSize(request.limit));
  const limit = pageSize(request.limit);
  const rows = await listActionLogPage(pool, {
    actorId: request.userId.toLowerCase(),
    afterId: decodeIdCursor(request.cursor),
    limit: limit + 1,
  });
  return toPage(rows, limit, (entry) => encodeIdCursor(entry.id));
}
