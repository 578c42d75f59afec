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
  'passkey_suspected_clone',
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
  /** To the old address when a change is asked for: the token cancels it. */
  z.object({ template: z.literal('email_change_requested'), ...recipient, token: z.string().min(16), new_email: z.email() }),
  /**
   * An automatic provider link dropped a password set before the address was
   * verified (perhaps a squatter's): the token sets a new one, as a reset does.
   */
  z.object({ template: z.literal('password_dropped'), ...recipient, token: z.string().min(16), provider: z.string() }),
  /**
   * An invitation to an organisation, to an address that may have no
   * account yet (so no handle): the token accepts it.
   */
  z.object({
    template: z.literal('org_invitation'),
    to: z.email(),
    token: z.string().min(16),
    organization_name: z.string().min(1).max(100),
    inviter_handle: z.string().min(1),
    role: z.string().min(1).max(48),
  }),
  /**
   * To each owner of an organisation: one of its webhook endpoints failed
   * for WEBHOOK_DISABLE_AFTER_HOURS and was disabled.
   */
  z.object({
    template: z.literal('webhook_disabled'),
    ...recipient,
    organization_name: z.string().min(1).max(100),
    /** The endpoint's host only: its URL may carry a token. */
    endpoint_host: z.string().min(1).max(300),
    failing_since: z.iso.datetime(),
  }),
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
    /** For `password_reset`: the ways in the reset removed, and those the account keeps. */
    removed_methods: z.array(z.string().max(100)).max(200).optional(),
    remaining_methods: z.array(z.string().max(100)).max(200).optional(),
    /** For `oidc_token_reused`: the application whose token was used twice. */
    client_name: z.string().max(200).optional(),
  }),
]);

export type MailJob = z.infer<typeof mailJobSchema>;
