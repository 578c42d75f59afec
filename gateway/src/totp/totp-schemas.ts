import { z } from 'zod';
import { timestamp, tokenField } from '../http/fields';

export const totpCodeField = z.string().regex(/^\d{6}$/, 'must be exactly 6 digits').describe('The 6-digit code of the authenticator app.');
export const backupCodeField = z
  .string()
  .regex(/^[A-Za-z0-9]{5}-?[A-Za-z0-9]{5}$/, 'must be a backup code like abcde-12345')
  .describe('A backup code, `xxxxx-xxxxx`; hyphen and case are ignored.');

export const totpChallengeSchema = z
  .object({ totp_required: z.literal(true), temp_token: z.string() })
  .meta({ id: 'TotpChallenge', description: 'Answered instead of a session when the account has TOTP on.' });

export const totpSetupSchema = z.object({
  secret: z.string().describe('Base32, for manual entry.'),
  otpauth_uri: z.string(),
  qr_code: z.string().describe('`data:image/png;base64,…` of otpauth_uri.'),
  setup_token: z.string().describe('Valid 10 minutes; give it to enable.'),
});

export const backupCodesSchema = z.object({ backup_codes: z.array(z.string()).length(10).describe('Shown once.') });
export const totpStatusSchema = z.object({
  enabled: z.boolean(),
  enabled_at: timestamp.nullable(),
  backup_codes_remaining: z.number().int(),
});

export const enableBody = z.object({ setup_token: tokenField, code: totpCodeField });
export const codeBody = z.object({ code: totpCodeField });
export const verifyBody = z
  .object({ temp_token: tokenField, code: totpCodeField.optional(), backup_code: backupCodeField.optional() })
  .refine((body) => (body.code === undefined) !== (body.backup_code === undefined), {
    message: 'give exactly one of code and backup_code',
    path: ['code'],
  });
