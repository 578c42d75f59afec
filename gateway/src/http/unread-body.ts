import type { IncomingMessage } from 'node:http';

/**
 * Fastify's errors that refuse a body before reading all of it (too large,
 * not JSON, a wrong length). Fastify then closes the connection, and a
 * client still sending sees the closed socket (Node's fetch: a network
 * error) instead of the answer.
 */
const UNREAD_BODY_ERRORS = new Set([
  'FST_ERR_CTP_BODY_TOO_LARGE',
  'FST_ERR_CTP_INVALID_MEDIA_TYPE',
  'FST_ERR_CTP_INVALID_CONTENT_LENGTH',
]);

/** How much of a refused body is read and thrown away, at most, before the answer: beyond it the socket is closed as it was. */
export const DRAIN_MAX_BYTES = 32 * 1024 * 1024;
export const DRAIN_MAX_MS = 10_000;

export function refusesUnreadBody(error: { code?: unknown }): boolean {
  return typeof error.code === 'string' && UNREAD_BODY_ERRORS.has(error.code);
}

/**
 * Reads and discards what is left of a refused request body, so that the
 * client has sent it all when the answer goes out and the connection
 * closes, and can read the 413 or 415. Bounded in bytes and time: a body
 * declared larger than DRAIN_MAX_BYTES is not read at all, and one that
 * outgrows it or takes longer than DRAIN_MAX_MS is left, so that refusing
 * costs at most that much.
 */
export async function drainUnreadBody(request: IncomingMessage): Promise<void> {
  if (request.complete || request.destroyed) return;
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > DRAIN_MAX_BYTES) return;
  await new Promise<void>((resolve) => {
    let received = 0;
    const finish = (): void => {
      clearTimeout(timer);
      request.off('data', onData).off('end', finish).off('error', finish).off('close', finish);
      resolve();
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > DRAIN_MAX_BYTES) finish();
    };
    const timer = setTimeout(finish, DRAIN_MAX_MS);
    request.on('data', onData).once('end', finish).once('error', finish).once('close', finish);
    request.resume();
  });
}
