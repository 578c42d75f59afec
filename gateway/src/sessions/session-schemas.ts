import { z } from 'zod';
import { currentPasswordField, emailField, timestamp } from '../http/fields';
import { backupCodeField, credentialResponseField, totpCodeField } from '../http/proof-fields';

export const loginBody = z.object({ email: emailField, password: currentPasswordField });

export const totpChallengeSchema = z
  .object({ totp_required: z.literal(true), temp_token: z.string() })
  .meta({ id: 'TotpChallenge', description: 'Answered instead of a session when the account has TOTP on.' });

export const sessionSchema = z
  .object({
    id: z.string().describe('Public id of the session; never the cookie value.'),
    created_at: timestamp,
    last_seen_at: timestamp,
    expires_at: timestamp,
    user_agent: z.string(),
    ip: z.string(),
    current: z.boolean(),
  })
  .meta({ id: 'Session' });

/**
 * A proof of identity as strong as a sign-in of the account (docs/api.md,
 * "Re-authentication"): the password, with a code or a backup code when
 * TOTP is on; a code or a backup code alone after a provider
 * re-authentication; or an assertion of one of the account's passkeys
 * (after POST /v0/auth/passkeys/authentication/options in this browser).
 */
export const reauthenticateBody = z
  .object({
    password: currentPasswordField.optional(),
    code: totpCodeField.optional(),
    backup_code: backupCodeField.optional(),
    passkey: credentialResponseField.optional(),
  })
  .refine((body) => body.code === undefined || body.backup_code === undefined, {
    message: 'give a code or a backup code, not both',
    path: ['backup_code'],
  })
  .refine((body) => body.passkey === undefined || [body.password, body.code, body.backup_code].every((proof) => proof === undefined), {
    message: 'a passkey is a proof on its own',
    path: ['passkey'],
  })
  .refine((body) => [body.password, body.code, body.backup_code, body.passkey].some((proof) => proof !== undefined), {
    message: 'give the password, a code, a backup code or a passkey',
    path: ['password'],
  });

export const reauthenticatedSchema = z.object({ reauthenticated_at: timestamp });

export const sessionListSchema = z.object({ items: z.array(sessionSchema) });
export const sessionIdParams = z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{22}$/, 'must be a session id') });
