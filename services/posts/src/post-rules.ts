import { isUuid } from '@latchkey/account-fields';
import { AppError, type FieldError } from '@latchkey/errors';

/** Field rules of docs/api.md, "Validation rules" and "Posts and search", enforced here because posts owns them. */
export const TITLE_MAX_CODE_POINTS = 200;
export const QUERY_MAX_CODE_POINTS = 200;
/** Each term is one more index lookup and one more operand to rank with. */
export const QUERY_MAX_TERMS = 16;
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
const MAX_HANDLE_LENGTH = 64;

function codePoints(text: string): number {
  return [...text].length;
}

/** PostgreSQL text cannot hold the NUL character; it is refused rather than left to fail in SQL. */
function hasNul(text: string): boolean {
  return text.includes('\u0000');
}

const noNul = (field: string): FieldError => ({ field, message: 'must not contain the NUL character' });

/** The stored form of a title: trimmed of whitespace at both ends. */
export function normalizeTitle(title: string): string {
  return title.trim();
}

export function checkTitle(title: string, field = 'title'): FieldError[] {
  if (hasNul(title)) return [noNul(field)];
  const length = codePoints(normalizeTitle(title));
  return length >= 1 && length <= TITLE_MAX_CODE_POINTS
    ? []
    : [{ field, message: `must be 1-${TITLE_MAX_CODE_POINTS} characters after trimming` }];
}

/** Content is measured in UTF-8 bytes, as stored; it is kept exactly as given. */
export function checkContent(content: string, maxBytes: number, field = 'content'): FieldError[] {
  if (hasNul(content)) return [noNul(field)];
  const bytes = Buffer.byteLength(content, 'utf8');
  return bytes >= 1 && bytes <= maxBytes ? [] : [{ field, message: `must be 1-${maxBytes} bytes of UTF-8` }];
}

/**
 * The handle comes from identity through the gateway, already valid there;
 * this only keeps an empty or absurd one out of every post's author.
 */
export function checkAuthorHandle(handle: string, field = 'author_handle'): FieldError[] {
  return handle.trim() === handle && handle.length >= 1 && handle.length <= MAX_HANDLE_LENGTH
    ? []
    : [{ field, message: `must be 1-${MAX_HANDLE_LENGTH} characters without surrounding spaces` }];
}

export function checkUuid(value: string, field: string): FieldError[] {
  return isUuid(value) ? [] : [{ field, message: 'must be a UUID' }];
}

export function checkPageSize(limit: number | undefined, field = 'limit'): FieldError[] {
  if (limit === undefined) return [];
  return Number.isInteger(limit) && limit >= 1 && limit <= MAX_PAGE_SIZE
    ? []
    : [{ field, message: `must be an integer from 1 to ${MAX_PAGE_SIZE}` }];
}

export function pageSize(limit: number | undefined): number {
  return limit ?? DEFAULT_PAGE_SIZE;
}

/**
 * The terms of a query as the text search parser splits them: runs of
 * letters and digits (`e-mail` is two, and so is `a.b`); the `or` operator
 * of web-search syntax is no term.
 */
export function searchTermCount(query: string): number {
  return (query.match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => word.toLowerCase() !== 'or').length;
}

export function checkSearchQuery(query: string, field = 'q'): FieldError[] {
  if (hasNul(query)) return [noNul(field)];
  const length = codePoints(query.trim());
  if (length < 1 || length > QUERY_MAX_CODE_POINTS) return [{ field, message: `must be 1-${QUERY_MAX_CODE_POINTS} characters` }];
  return searchTermCount(query) <= QUERY_MAX_TERMS ? [] : [{ field, message: `must have at most ${QUERY_MAX_TERMS} words` }];
}

/** Throws one validation error listing every failed field. */
export function assertValid(...checks: FieldError[][]): void {
  const fields = checks.flat();
  if (fields.length > 0) throw AppError.validation(fields);
}
