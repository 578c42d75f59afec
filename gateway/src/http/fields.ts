import { z } from 'zod';
import {
  HANDLE_PATTERN,
  HANDLE_RULE,
  isPasswordLengthValid,
  MAX_EMAIL_LENGTH,
  PASSWORD_RULE,
  undeliverableEmailReason,
} from '@latchkey/account-fields';

/** The account fields (packages/account-fields) as the HTTP surface checks and documents them. */
export const handleField = z
  .string()
  .regex(HANDLE_PATTERN, HANDLE_RULE)
  .describe('3-32 characters of [A-Za-z0-9_]; stored lower-cased.');

export const emailField = z
  .string()
  .trim()
  .max(MAX_EMAIL_LENGTH, `must be at most ${MAX_EMAIL_LENGTH} characters`)
  .pipe(z.email('must be an email address'))
  .describe('An email address; stored trimmed and lower-cased.');

/** An address to be stored: it must also be able to receive mail. */
export const newEmailField = emailField
  .superRefine((email, context) => {
    const reason = undeliverableEmailReason(email);
    if (reason) context.addIssue({ code: 'custom', message: reason });
  })
  .describe('An email address that can receive mail: at most 64 characters before the @ and a host name after it; stored trimmed and lower-cased.');

/** Length in code points, as the password hash sees it, not UTF-16 units. */
export const newPasswordField = z
  .string()
  .refine(isPasswordLengthValid, PASSWORD_RULE)
  .describe('8-128 characters, NFKC-normalised before hashing; not equal to the email or handle.');

/** A password being checked, not set: any length a real one could have. */
export const currentPasswordField = z.string().min(1, 'is required').max(1024, 'is too long');

export const tokenField = z.string().min(1, 'is required').max(512, 'is too long').describe('The token from the mail link.');

export const timestamp = z.iso.datetime().describe('RFC 3339, UTC.');
