import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError, describeError, type ErrorCode, type FieldError } from '@latchkey/errors';

/** The body of every error response (RFC 9457 with the contract's `code`). */
export interface ProblemDetails {
  type: 'about:blank';
  title: string;
  status: number;
  code: ErrorCode;
  detail: string;
  errors?: FieldError[];
  /** For `auth:sso_required`: the organisation to sign in through (`POST /v0/auth/sso/start {org_slug}`). */
  org_slug?: string;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  431: 'Request Header Fields Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

export function problemOf(error: AppError): ProblemDetails {
  const status = describeError(error.code).httpStatus;
  const problem: ProblemDetails = {
    type: 'about:blank',
    title: TITLES[status] ?? 'Error',
    status,
    code: error.code,
    detail: error.message,
  };
  if (error.code === 'validation:invalid_input' && error.fields.length > 0) problem.errors = [...error.fields];
  if (error.code === 'auth:sso_required' && error.orgSlug !== undefined) problem.org_slug = error.orgSlug;
  return problem;
}

export function sendProblem(reply: FastifyReply, error: AppError): FastifyReply {
  const problem = problemOf(error);
  if (error.retryAfterSeconds !== undefined) void reply.header('retry-after', String(error.retryAfterSeconds));
  return reply.code(problem.status).type('application/problem+json').send(problem);
}

/** `/name/0/first` → `name[0].first`; query and path parameters keep their plain names. */
function fieldName(instancePath: string, context: string | undefined): string {
  const parts = instancePath.split('/').filter((part) => part.length > 0);
  if (parts.length === 0) return context === 'body' || context === undefined ? 'body' : context;
  return parts.map((part, index) => (/^\d+$/.test(part) ? `[${part}]` : `${index > 0 ? '.' : ''}${part}`)).join('');
}

/** Fastify's own errors by code, so that they too answer with a contract code. */
const FASTIFY_ERRORS: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'validation:unsupported_media_type',
  FST_ERR_CTP_BODY_TOO_LARGE: 'validation:payload_too_large',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'validation:invalid_input',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'validation:invalid_input',
  FST_ERR_CTP_INVALID_JSON_BODY: 'validation:invalid_input',
  FST_ERR_VALIDATION: 'validation:invalid_input',
  // Raised by the router before any hook runs; app.ts hands them here through `frameworkErrors`.
  FST_ERR_BAD_URL: 'validation:invalid_input',
  FST_ERR_MAX_PARAM_LENGTH: 'validation:invalid_input',
};

/**
 * The one translation from anything thrown in a request to problem+json.
 * Unknown errors are logged with their stack and leave as `internal:error`.
 */
export function toAppError(error: FastifyError | Error, request: FastifyRequest): AppError {
  if (error instanceof AppError) return error;
  if (hasZodFastifySchemaValidationErrors(error)) {
    const context = (error as { validationContext?: string }).validationContext;
    return AppError.validation(
      error.validation.map((issue) => ({ field: fieldName(issue.instancePath, context), message: issue.message ?? 'is invalid' })),
    );
  }
  const fastifyError = error as FastifyError;
  const mapped = fastifyError.code ? FASTIFY_ERRORS[fastifyError.code] : undefined;
  if (mapped) return new AppError(mapped, mapped === 'validation:invalid_input' ? invalidBodyDetail(fastifyError) : undefined);
  if (error instanceof SyntaxError || fastifyError.statusCode === 400) {
    return new AppError('validation:invalid_input', 'The body is not valid JSON.');
  }
  request.log.error({ err: error }, 'unhandled error');
  return new AppError('internal:error');
}

const invalidInputDetails: Record<string, string> = {
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The body must not be empty.',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'The Content-Length does not match the body.',
  FST_ERR_BAD_URL: 'The path is not valid percent-encoding.',
  FST_ERR_MAX_PARAM_LENGTH: 'A path parameter is too long.',
};

function invalidBodyDetail(error: FastifyError): string {
  return invalidInputDetails[error.code] ?? 'The body is not valid JSON.';
}
