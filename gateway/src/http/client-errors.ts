import type { Socket } from 'node:net';
import { AppError } from '@latchkey/errors';
import { problemOf } from './problem-details';

/**
 * Answers what Node's HTTP parser refuses before Fastify sees a request:
 * a request line and headers over the 16 KiB limit (a very long URL) is
 * 431, anything else that is not HTTP 400, both as problem+json like every
 * other error of the gateway, with the headers every answer carries. A
 * socket that is already gone, or a client that sent nothing in time, gets
 * nothing: there is nobody left to read it.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || !socket.writable) {
    socket.destroy();
    return;
  }
  const refusal =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new AppError('validation:headers_too_large')
      : new AppError('validation:invalid_input', 'The request is not valid HTTP.');
  const problem = problemOf(refusal);
  const body = JSON.stringify(problem);
  socket.end(
    [
      `HTTP/1.1 ${problem.status} ${problem.title}`,
      'content-type: application/problem+json; charset=utf-8',
      `content-length: ${Buffer.byteLength(body)}`,
      'x-content-type-options: nosniff',
      'cache-control: no-store',
      'connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}
