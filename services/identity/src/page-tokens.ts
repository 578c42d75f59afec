import { AppError } from '@latchkey/errors';

/**
 * Keyset page tokens: the (time, id) of the last row of a page, opaque to
 * callers. A token this service did not issue is a caller error.
 */
export function encodePageToken(at: Date, id: string): string {
  return Buffer.from(JSON.stringify([at.toISOString(), id])).toString('base64url');
}

export function decodePageToken(token: string, field = 'page_token'): { at: Date; id: string } | undefined {
  if (token === '') return undefined;
  try {
    const [at, id] = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown[];
    const time = typeof at === 'string' ? new Date(at) : undefined;
    if (time && !Number.isNaN(time.getTime()) && typeof id === 'string' && /^[0-9a-f-]{36}$/.test(id)) return { at: time, id };
  } catch {
    // Falls through to the caller error.
  }
  throw AppError.validation([{ field, message: 'is not a page token of this list' }]);
}

/** 1-100; 0 (unset) means 20. */
export function pageSizeOf(requested: number): number {
  if (requested === 0) return 20;
  if (!Number.isInteger(requested) || requested < 1 || requested > 100) {
    throw AppError.validation([{ field: 'page_size', message: 'must be from 1 to 100' }]);
  }
  return requested;
}
