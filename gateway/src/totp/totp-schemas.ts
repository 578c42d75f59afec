import { z } from 'zod';
import { timestamp, tokenField } from '../http/fields';
import { backupCodeField, totpCodeField } from '../http/proof-fields';

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
