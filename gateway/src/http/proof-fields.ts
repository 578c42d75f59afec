import { z } from 'zod';

/*
 * What proves who the caller is, beside the password (fields.ts): asked by
 * the routes of several resources (a sign-in's second step, a
 * re-authentication, TOTP and passkey changes), so the HTTP surface owns them.
 */

export const totpCodeField = z.string().regex(/^\d{6}$/, 'must be exactly 6 digits').describe('The 6-digit code of the authenticator app.');
export const backupCodeField = z
  .string()
  .regex(/^[A-Za-z0-9]{5}-?[A-Za-z0-9]{5}$/, 'must be a backup code like abcde-12345')
  .describe('A backup code, `xxxxx-xxxxx`; hyphen and case are ignored.');

/** The most a credential id can take in base64url (1023 bytes, WebAuthn Level 3). */
const MAX_CREDENTIAL_ID_LENGTH = 1_364;

/**
 * What `navigator.credentials.create()` or `.get()` resolved to, serialized
 * with `toJSON()` (WebAuthn Level 3): the gateway checks its outline and the
 * passkeys service everything else.
 */
export const credentialResponseField = z
  .looseObject({
    id: z.string().min(1).max(MAX_CREDENTIAL_ID_LENGTH),
    rawId: z.string().min(1).max(MAX_CREDENTIAL_ID_LENGTH),
    type: z.literal('public-key'),
    response: z.looseObject({ clientDataJSON: z.string().min(1) }),
  })
  .describe('The PublicKeyCredential the browser answered, as its toJSON() gives it.');
