import { z } from 'zod';
import { AppError, type FieldError } from '@latchkey/errors';
import { normalizeBackupCode } from './backup-codes';
import { TOTP_CODE_PATTERN } from './totp-code';

/**
 * Checks of what callers send. The gateway validates the HTTP body too;
 * these keep the service safe on its own (a malformed id must not reach SQL,
 * a malformed address must not reach the mail queue).
 */
const uuid = z.uuid();
const email = z.email();
/** Tokens are 43 characters of base64url; anything far longer is not one. */
const MAX_TOKEN_LENGTH = 256;

export function checkUserId(userId: string, field = 'user_id'): FieldError[] {
  return uuid.safeParse(userId).success ? [] : [{ field, message: 'must be a UUID' }];
}

export function checkTotpCode(code: string, field = 'code'): FieldError[] {
  return TOTP_CODE_PATTERN.test(code) ? [] : [{ field, message: 'must be exactly 6 digits' }];
}

export function checkBackupCode(code: string, field = 'backup_code'): FieldError[] {
  return normalizeBackupCode(code) ? [] : [{ field, message: 'must be 10 characters of a-z and 0-9' }];
}

export function checkToken(token: string, field: string): FieldError[] {
  if (token.length === 0) return [{ field, message: 'is required' }];
  return token.length <= MAX_TOKEN_LENGTH ? [] : [{ field, message: 'is not a token of this service' }];
}

export function checkAccountEmail(accountEmail: string): FieldError[] {
  return email.safeParse(accountEmail).success ? [] : [{ field: 'account_email', message: 'must be an email address' }];
}

/** The recipient of a security notice, as the mail job contract demands it. */
export function checkNoticeRecipient(account: { accountEmail: string; accountHandle: string }): FieldError[] {
  const handle: FieldError[] =
    account.accountHandle.trim().length > 0 ? [] : [{ field: 'account_handle', message: 'is required' }];
  return [...checkAccountEmail(account.accountEmail), ...handle];
}

/** Throws one validation error listing every failed field. */
export function assertValid(...checks: FieldError[][]): void {
  const fields = checks.flat();
  if (fields.length > 0) throw AppError.validation(fields);
}
