import { z } from 'zod';
import { AppError, type FieldError } from '@latchkey/errors';

/**
 * Checks of what callers send. The gateway validates the HTTP body too;
 * these keep the service safe on its own (a malformed id must not reach SQL).
 */
const uuid = z.uuid();
/** A session id or a token hash: base64url, far shorter than this bound. */
const BINDING = /^[A-Za-z0-9_-]{16,128}$/;
/** A WebAuthn response with a large attestation stays well under this. */
const MAX_RESPONSE_JSON_LENGTH = 64 * 1024;
export const MAX_PASSKEY_NAME_LENGTH = 64;

export function checkUuid(value: string, field: string): FieldError[] {
  return uuid.safeParse(value).success ? [] : [{ field, message: 'must be a UUID' }];
}

export function checkBinding(binding: string): FieldError[] {
  return BINDING.test(binding) ? [] : [{ field: 'binding', message: 'must be 16 to 128 characters of base64url' }];
}

/** Names are shown in lists and mails: one line of printable text. */
export function checkPasskeyName(name: string, field = 'name'): FieldError[] {
  const trimmed = name.trim();
  if (trimmed.length === 0) return [{ field, message: 'is required' }];
  if (trimmed.length > MAX_PASSKEY_NAME_LENGTH) return [{ field, message: `must be at most ${MAX_PASSKEY_NAME_LENGTH} characters` }];
  return /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(trimmed) ? [{ field, message: 'must be one line of printable text' }] : [];
}

/** The browser's JSON, parsed; a response that is not even JSON is a validation error, not a failed ceremony. */
export function parseResponseJson(json: string): unknown {
  const invalid = () => AppError.validation([{ field: 'response', message: 'must be the JSON a WebAuthn ceremony answers' }]);
  if (json.length === 0 || json.length > MAX_RESPONSE_JSON_LENGTH) throw invalid();
  try {
    const parsed: unknown = JSON.parse(json);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalid();
    return parsed;
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw invalid();
  }
}

/** Throws one validation error listing every failed field. */
export function assertValid(...checks: FieldError[][]): void {
  const fields = checks.flat();
  if (fields.length > 0) throw AppError.validation(fields);
}
