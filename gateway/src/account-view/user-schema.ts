import { z } from 'zod';
import { timestamp } from '../http/fields';

/** `{user}` of docs/api.md, "Accounts": what every answer that shows the account shows. */
export const userSchema = z
  .object({
    id: z.uuid(),
    handle: z.string(),
    email: z.string(),
    email_verified: z.boolean(),
    email_verified_at: timestamp.nullable(),
    has_password: z.boolean(),
    totp_enabled: z.boolean(),
    passkeys_count: z.number().int().min(0).describe('Passkeys that can sign in to the account.'),
    created_at: timestamp,
  })
  .meta({ id: 'User' });
