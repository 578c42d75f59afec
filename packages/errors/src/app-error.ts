import { describeError, type ErrorCode } from './catalogue';

/** One field that failed validation, as problem+json's `errors[]` lists it. */
export interface FieldError {
  readonly field: string;
  readonly message: string;
}

/**
 * An error whose code is part of the contract. Domain code throws it; the
 * gRPC kit carries it across the wire and the gateway renders it.
 */
export class AppError extends Error {
  override readonly name = 'AppError';
  readonly code: ErrorCode;
  readonly fields: readonly FieldError[];
  /** Seconds a client should wait, for `rate_limit:exceeded`. */
  readonly retryAfterSeconds: number | undefined;
  /** The organisation whose SSO connection the account must sign in through, for `auth:sso_required`. */
  readonly orgSlug: string | undefined;

  constructor(
    code: ErrorCode,
    detail?: string,
    options: { fields?: readonly FieldError[]; retryAfterSeconds?: number; orgSlug?: string; cause?: unknown } = {},
  ) {
    super(detail ?? describeError(code).message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.fields = options.fields ?? [];
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.orgSlug = options.orgSlug;
  }

  get httpStatus(): number {
    return describeError(this.code).httpStatus;
  }

  static validation(fields: readonly FieldError[]): AppError {
    const detail = fields.map((f) => `${f.field} ${f.message}`).join('; ');
    return new AppError('validation:invalid_input', detail || undefined, { fields });
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
