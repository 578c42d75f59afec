import { AppError } from '@latchkey/errors';

/**
 * Keyset page tokens: the (time, id) of the last row of a page, opaque to
 * callers. A token this service did not issue is a caller error.
 *
 * The time is carried as PostgreSQL's exact text of the stored timestamp
 * (pageKeySql), never through a JavaScript Date: a Date keeps
 * milliseconds, the columns keep microseconds, and a keyset cut to the
 * millisecond skips the rows that share the last row's millisecond.
 */
export function encodePageToken(at: string, id: string): string {
  return Buffer.from(JSON.stringify([at, id])).toString('base64url');
}

/** The select expression giving a timestamp column's page key: UTC, to the microsecond, which PostgreSQL parses back exactly. */
export function pageKeySql(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

const PAGE_KEY = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?Z$/;

export function decodePageToken(token: string, field = 'page_token'): { at: string; id: string } | undefined {
  if (token === '') return undefined;
  try {
    const [at, id] = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown[];
    if (typeof at === 'string' && PAGE_KEY.test(at) && !Number.isNaN(Date.parse(at)) && typeof id === 'string' && /^[0-9a-f-]{36}$/.test(id)) return { at, id };
  } catch {
    // Falls through to the caller error.
  }
  throw AppError.validation([{ field, message: 'is not a page token of this list' }]);
}

/** 1-100; 0 (unset) means 20. */
export function pageSizeOf(requested: number, field = 'page_size'): number {
  if (requested === 0) return 20;
  if (!Number.isInteger(requested) || requested < 1 || requested > 100) {
    throw AppError.validation([{ field, message: 'must be from 1 to 100' }]);
  }
  return requested;
}
