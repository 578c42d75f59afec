import { z } from 'zod';

/** Security notices: plain mails with no token (docs/api.md, "Security notices"). */
export const securityNotices = [
  'password_changed',
  'password_reset',
  'email_changed',
  'totp_enabled',
  'totp_disabled',
  'backup_codes_regenerated',
  'oauth_linked',
  'oauth_unlinked',
  'passkey_added',
  'passkey_removed',
  'account_deleted',
  'oidc_token_reused',
] as const;

export type SecurityNotice = (typeof securityNotices)[number];

const recipient = { to: z.email(), handle: z.string().min(1) };

/**
 * A mail to send. Token mails carry the raw token: it exists only in the
 * outbox row and the job, both deleted once the mail is sent.
 */
export const mailJobSchema = z.discriminatedUnion('template', [
  z.object({ template: z.literal('verify_email'), ...recipient, token: z.string().min(16) }),
  z.object({ template: z.literal('reset_password'), ...recipient, token: z.string().min(16) }),
  z.object({ template: z.literal('confirm_email_change'), ...recipient, token: z.string().min(16) }),
  z.object({
    template: z.literal('security_notice'),
    ...recipient,
    notice: z.enum(securityNotices),
    /** For `email_changed`: the address the account moved to. */
    new_email: z.email().optional(),
    /** For OAuth notices: the provider. */
    provider: z.string().optional(),
    /** For passkey notices: the name the passkey has in the account. */
    passkey_name: z.string().max(64).optional(),
    /** For `oidc_token_reused`: the application whose token was used twice. */
    client_name: z.string().max(200).optional(),
  }),
]);

export type MailJob = z.infer<typeof mailJobSchema>;
