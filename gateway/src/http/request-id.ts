import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Echoes the client's `x-request-id` when it is a sane token; anything else
 * (too long, odd characters that would pollute logs) gets a fresh id.
 */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  const value = Array.isArray(given) ? given[0] : given;
  return value && ACCEPTABLE.test(value) ? value : randomUUID();
}
