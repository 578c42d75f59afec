import type { FastifyReply } from 'fastify';
import { describeError, type AppError } from '@latchkey/errors';
import { SCIM_SCHEMAS } from './scim-resources';

/**
 * An error as RFC 7644 §3.12 has it: the Error schema, `status` as a
 * string, and `scimType` for the 400s and 409s that have one (the reason
 * of a `scim:` code, camel-cased: scim:invalid_filter → invalidFilter; a
 * validation error of the gateway's own checks is invalidSyntax).
 */
export function sendScimError(reply: FastifyReply, error: AppError): FastifyReply {
  const status = describeError(error.code).httpStatus;
  const body: Record<string, unknown> = { schemas: [SCIM_SCHEMAS.error], status: String(status), detail: error.message };
  const [domain, reason] = error.code.split(':') as [string, string];
  if (domain === 'scim' && (status === 400 || status === 409)) body.scimType = reason.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());
  else if (error.code === 'validation:invalid_input') body.scimType = 'invalidSyntax';
  if (error.retryAfterSeconds !== undefined) void reply.header('retry-after', String(error.retryAfterSeconds));
  return reply.code(status).type('application/scim+json').send(body);
}
