import { Metadata, status as GrpcStatus, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import { AppError, describeError, isErrorCode, type FieldError } from '@latchkey/errors';
import { isDependencyOutage } from './dependency-outage';
import { metadataKeys } from './metadata-keys';

/**
 * What a thrown error means to a caller: an AppError is part of the
 * contract, a dependency outage is `service:unavailable`, anything else is
 * `internal:error`, so that internals never reach a caller.
 */
export function contractErrorOf(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (isDependencyOutage(error)) return new AppError('service:unavailable', undefined, { cause: error });
  return new AppError('internal:error', undefined, { cause: error });
}

/** The one translation from a contract error to a gRPC status; the API code travels in trailers. */
export function toStatus(appError: AppError): Partial<StatusObject> {
  const metadata = new Metadata();
  metadata.set(metadataKeys.errorCode, appError.code);
  if (appError.fields.length > 0) metadata.set(metadataKeys.errorFields, JSON.stringify(appError.fields));
  if (appError.retryAfterSeconds !== undefined) metadata.set(metadataKeys.retryAfter, String(appError.retryAfterSeconds));
  if (appError.orgSlug !== undefined) metadata.set(metadataKeys.orgSlug, appError.orgSlug);
  return { code: describeError(appError.code).grpcStatus, details: appError.message, metadata };
}

function parseFields(raw: unknown): FieldError[] {
  if (typeof raw !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(raw);
    if (!Array.isArray(parsed)) return [];
    return parsed.filter((item: unknown): item is FieldError => {
      const candidate = item as Partial<Record<keyof FieldError, unknown>> | null;
      return typeof candidate?.field === 'string' && typeof candidate.message === 'string';
    });
  } catch {
    return [];
  }
}

/** The inverse of toStatus, on the calling side. */
export function fromServiceError(error: ServiceError): AppError {
  const code = error.metadata?.get(metadataKeys.errorCode)[0];
  if (isErrorCode(code)) {
    const retryAfter = Number(error.metadata.get(metadataKeys.retryAfter)[0]);
    const orgSlug = error.metadata.get(metadataKeys.orgSlug)[0];
    return new AppError(code, error.details, {
      fields: parseFields(error.metadata.get(metadataKeys.errorFields)[0]),
      retryAfterSeconds: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
      orgSlug: typeof orgSlug === 'string' && orgSlug !== '' ? orgSlug : undefined,
      cause: error,
    });
  }
  if (
    error.code === GrpcStatus.UNAVAILABLE ||
    error.code === GrpcStatus.DEADLINE_EXCEEDED ||
    error.code === GrpcStatus.CANCELLED
  ) {
    return new AppError('service:unavailable', undefined, { cause: error });
  }
  return new AppError('internal:error', undefined, { cause: error });
}
