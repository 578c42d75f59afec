import { AppError } from '@latchkey/errors';
import { isUuid } from '@latchkey/account-fields';

/**
 * Opaque page cursors: base64url of a small JSON object holding the last
 * row's sort key. Lists sort by id (UUIDv7, time-ordered), so their key is
 * the id; search sorts by rank then id, so its key holds both. Keyset
 * cursors stay correct when rows are added or deleted between pages, which
 * offsets do not. A cursor is checked on the way in: a malformed or
 * foreign one is a validation error, never a SQL error.
 */

/** Longer than any cursor this module makes; anything beyond is not one of ours. */
const MAX_CURSOR_LENGTH = 200;
/** ts_rank_cd's `real`, as PostgreSQL prints it (shortest round-trip form). */
const RANK_PATTERN = /^\d+(\.\d+)?(e[+-]?\d+)?$/;

export interface RankKey {
  /** The rank as PostgreSQL printed it, so that it converts back to the identical `real`. */
  readonly rank: string;
  readonly id: string;
}

function encode(key: Record<string, string>): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

function invalidCursor(field: string): AppError {
  return AppError.validation([{ field, message: 'is not a valid cursor' }]);
}

/** Parses a cursor into an object with exactly `keys`, all strings; throws a validation error otherwise. */
function decode<Key extends string>(cursor: string, keys: readonly Key[], field: string): Record<Key, string> {
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalidCursor(field);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor(field);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalidCursor(field);
  const entries = Object.entries(parsed);
  const valid =
    entries.length === keys.length &&
    entries.every(([name, value]) => (keys as readonly string[]).includes(name) && typeof value === 'string');
  if (!valid) throw invalidCursor(field);
  return parsed as Record<Key, string>;
}

export function encodeIdCursor(id: string): string {
  return encode({ id });
}

/** The id after which the next page starts; undefined for the first page (empty cursor). */
export function decodeIdCursor(cursor: string, field = 'cursor'): string | undefined {
  if (cursor === '') return undefined;
  const { id } = decode(cursor, ['id'], field);
  if (!isUuid(id)) throw invalidCursor(field);
  return id.toLowerCase();
}

export function encodeRankCursor(key: RankKey): string {
  return encode({ rank: key.rank, id: key.id });
}

/** The (rank, id) after which the next page starts; undefined for the first page. */
export function decodeRankCursor(cursor: string, field = 'cursor'): RankKey | undefined {
  if (cursor === '') return undefined;
  const { rank, id } = decode(cursor, ['rank', 'id'], field);
  if (!RANK_PATTERN.test(rank) || !Number.isFinite(Number(rank)) || !isUuid(id)) throw invalidCursor(field);
  return { rank, id: id.toLowerCase() };
}

/**
 * Splits the `limit + 1` rows a page query fetched into the page and the
 * cursor after it: the extra row only tells that another page exists, so
 * the last page never answers a cursor leading to an empty one.
 */
export function toPage<Row>(rows: readonly Row[], limit: number, cursorAfter: (row: Row) => string): {
  items: Row[];
  nextCursor: string;
} {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last !== undefined ? cursorAfter(last) : '' };
}
