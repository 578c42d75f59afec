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

/** The organisation a session acts for, as GET /v0/users/me shows it (docs/api.md, "Organisations"). */
export const activeOrganizationSchema = z
  .object({
    id: z.uuid(),
    slug: z.string(),
    role: z.string().describe('The account’s role there.'),
    permissions: z.array(z.string()).describe('Its permissions there, each `resource:action`, sorted.'),
  })
  .meta({ id: 'ActiveOrganization' });

/** GET /v0/users/me: `{user}` and the organisation the session acts for. */
export const meSchema = userSchema
  .extend({
    active_org: activeOrganizationSchema
      .nullable()
      .describe('The organisation this session acts for (PUT /v0/auth/session/org), or null; null too once the account is no longer a member of it.'),
  })
  .meta({ id: 'Me' });
