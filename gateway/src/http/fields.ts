import { z } from 'zod';

/** Field rules of docs/api.md part 2, as the HTTP surface checks and documents them. */
export const handleField = z
  .string()
  .regex(/^[A-Za-z0-9_]{3,32}$/, 'must be 3-32 characters of A-Z, a-z, 0-9 and _')
  .describe('3-32 characters of [A-Za-z0-9_]; stored lower-cased.');

export const emailField = z
  .string()
  .trim()
  .max(254, 'must be at most 254 characters')
  .pipe(z.email('must be an email address'))
  .describe('An email address; stored trimmed and lower-cased.');

/** Length in code points, as the password hash sees it, not UTF-16 units. */
export const newPasswordField = z
  .string()
  .refine((value) => {
    const length = [...value.normalize('NFKC')].length;
    return length >= 8 && length <= 128;
  }, 'must be 8-128 characters')
  .describe('8-128 characters, NFKC-normalised before hashing; not equal to the email or handle.');

/** A password being checked, not set: any length a real one could have. */
export const currentPasswordField = z.string().min(1, 'is required').max(1024, 'is too long');

export const tokenField = z.string().min(1, 'is required').max(512, 'is too long').describe('The token from the mail link.');

export const timestamp = z.iso.datetime().describe('RFC 3339, UTC.');
