import type { MailJob, SecurityNotice } from '@latchkey/jobs-contract';

/** What a template renders to; the mailer adds sender, recipient and Message-ID. */
export interface RenderedMail {
  readonly subject: string;
  readonly text: string;
}

type NoticeJob = Extract<MailJob, { template: 'security_notice' }>;

/**
 * Links as docs/api.md, "Links and tokens", fixes them: `{PUBLIC_APP_URL}/<path>?token=T`.
 * Plain concatenation keeps a path prefix of PUBLIC_APP_URL, which
 * `new URL('/path', base)` would drop. Tokens are base64url, so encoding
 * leaves a real token unchanged and only defuses a malformed one.
 */
function tokenLink(publicAppUrl: string, path: string, token: string): string {
  return `${publicAppUrl.replace(/\/+$/, '')}/${path}?token=${encodeURIComponent(token)}`;
}

const providerNames: Record<string, string> = { google: 'Google', github: 'GitHub', sso: 'your organisation’s single sign-on' };

function providerName(provider: string | undefined): string {
  if (provider === undefined) return 'an external sign-in provider';
  return providerNames[provider] ?? provider;
}

/** The passkey's name as the user gave it, quoted, so that they know which one is meant. */
function passkeyName(name: string | undefined): string {
  return name === undefined ? '' : ` ("${name}")`;
}

/**
 * What a reset took back and what the account keeps (docs/security.md, "A
 * reset takes back what an intruder added"), as the worker described them.
 */
function resetMethods(job: NoticeJob): string[] {
  const removed = job.removed_methods ?? [];
  const remaining = job.remaining_methods ?? [];
  const lines: string[] = [];
  if (removed.length > 0) {
    lines.push(`Ways to sign in that were added shortly before the reset were removed, in case they were not yours: ${removed.join(', ')}. Add them again if they were.`);
  }
  if (job.remaining_methods !== undefined) {
    lines.push(`Your account can now be signed in to with: your new password${remaining.length > 0 ? `, ${remaining.join(', ')}` : ''}.`);
  }
  return lines;
}

/** Token lifetimes belong to identity's configuration, which the worker does not read. */
const EXPIRY = 'This link expires soon and works only once.';

const SIGNATURE = '— Latchkey';

function compose(handle: string, paragraphs: readonly string[]): string {
  return [`Hello ${handle},`, ...paragraphs, SIGNATURE].join('\n\n') + '\n';
}

interface NoticeText {
  readonly subject: string;
  /** What happened. */
  readonly happened: string;
  /** What to do if it was not the recipient. */
  readonly ifNotYou: string;
}

function noticeText(job: NoticeJob, publicAppUrl: string): NoticeText {
  const resetAdvice = `If this was not you, reset your password at once from the sign-in page at ${publicAppUrl} and review your active sessions.`;
  const adminAdvice = `If this was not you, contact the administrator of ${publicAppUrl} at once.`;
  const notices: Record<SecurityNotice, NoticeText> = {
    password_changed: {
      subject: 'Your password was changed',
      happened: 'The password of your account was just changed. Your other sessions were signed out.',
      ifNotYou: resetAdvice,
    },
    password_reset: {
      subject: 'Your password was reset',
      happened: [
        'The password of your account was just reset with a link sent to this address, and every session was signed out.',
        ...resetMethods(job),
      ].join('\n\n'),
      ifNotYou: `If this was not you, someone can read your mail: secure your mailbox, then reset your password again from the sign-in page at ${publicAppUrl}.`,
    },
    email_changed: {
      subject: 'Your email address was changed',
      happened:
        job.new_email === undefined
          ? 'The email address of your account was just changed. Mail for the account no longer goes to this address, and your other sessions were signed out.'
          : `The email address of your account was just changed to ${job.new_email}. Mail for the account no longer goes to this address, and your other sessions were signed out.`,
      // A password reset would mail the new address, which the intruder controls.
      ifNotYou: adminAdvice,
    },
    totp_enabled: {
      subject: 'Two-factor authentication was turned on',
      happened:
        'Two-factor authentication was just turned on for your account. Signing in now also asks for a code from your authenticator app, and your other sessions were signed out.',
      ifNotYou: resetAdvice,
    },
    totp_disabled: {
      subject: 'Two-factor authentication was turned off',
      happened: 'Two-factor authentication was just turned off for your account. Signing in no longer asks for a code.',
      ifNotYou: `${resetAdvice} Then turn two-factor authentication on again.`,
    },
    backup_codes_regenerated: {
      subject: 'New backup codes were generated',
      happened: 'New two-factor backup codes were just generated for your account. Your previous backup codes no longer work.',
      ifNotYou: resetAdvice,
    },
    oauth_linked: {
      subject: 'A sign-in method was linked to your account',
      happened: `Signing in with ${providerName(job.provider)} was just linked to your account, and your other sessions were signed out.`,
      ifNotYou: `${resetAdvice} Then unlink that sign-in method in your account settings.`,
    },
    oauth_unlinked: {
      subject: 'A sign-in method was removed from your account',
      happened: `Signing in with ${providerName(job.provider)} was just removed from your account.`,
      ifNotYou: resetAdvice,
    },
    passkey_added: {
      subject: 'A passkey was added to your account',
      happened: `A passkey${passkeyName(job.passkey_name)} was just added to your account. It can sign in without your password.`,
      ifNotYou: `${resetAdvice} Then remove that passkey in your account settings.`,
    },
    passkey_removed: {
      subject: 'A passkey was removed from your account',
      happened: `A passkey${passkeyName(job.passkey_name)} was just removed from your account. It can no longer sign in.`,
      ifNotYou: resetAdvice,
    },
    passkey_suspected_clone: {
      subject: 'A copy of one of your passkeys may exist',
      happened: `A sign-in with your passkey${passkeyName(job.passkey_name)} was just refused: its authenticator counted fewer signatures than it had before, which is what a copy of its key on another device looks like. From now on this passkey signs in to nothing.`,
      ifNotYou: `If this was not you, someone else holds a copy of that key. Either way, remove that passkey in your account settings at ${publicAppUrl}, review your active sessions, and add your authenticator again as a new passkey if you still use it. If that passkey was your only way to sign in, first set a password with "Forgot password" on the sign-in page.`,
    },
    account_deleted: {
      subject: 'Your account was deleted',
      happened: 'Your account and its posts were just deleted. This cannot be undone.',
      ifNotYou: adminAdvice,
    },
    oidc_token_reused: {
      subject: 'An application’s access to your account was revoked',
      happened: `A refresh token that ${job.client_name ?? 'an application'} had already used was presented again, which happens when a token is stolen. Its access to your account was revoked; signing in to it again gives it a new one.`,
      ifNotYou: `If this was not you, review your active sessions and allowed applications at ${publicAppUrl} and reset your password.`,
    },
  };
  return notices[job.notice];
}

/** Renders a mail job to the subject and plain-text body of its mail. */
export function renderMail(job: MailJob, publicAppUrl: string): RenderedMail {
  switch (job.template) {
    case 'verify_email':
      return {
        subject: 'Verify your email address',
        text: compose(job.handle, [
          'Please confirm that this is your email address by opening this link:',
          tokenLink(publicAppUrl, 'verify-email', job.token),
          `${EXPIRY} If you did not create an account, you can ignore this mail.`,
        ]),
      };
    case 'reset_password':
      return {
        subject: 'Reset your password',
        text: compose(job.handle, [
          'Someone, hopefully you, asked to reset the password of your account. Open this link to choose a new password:',
          tokenLink(publicAppUrl, 'reset-password', job.token),
          `${EXPIRY} If you did not ask for this, ignore this mail: your password stays as it is.`,
        ]),
      };
    case 'confirm_email_change':
      return {
        subject: 'Confirm your new email address',
        text: compose(job.handle, [
          'Open this link to make this address the email address of your account:',
          tokenLink(publicAppUrl, 'confirm-email-change', job.token),
          `${EXPIRY} If you did not ask for this, ignore this mail: nothing changes.`,
        ]),
      };
    case 'email_change_requested':
      return {
        subject: 'A change of your email address was requested',
        text: compose(job.handle, [
          `Someone, hopefully you, asked to change the email address of your account to ${job.new_email}. It changes only when the link mailed to that address is opened.`,
          'If this was not you, cancel the change now with this link, then reset your password and review your active sessions:',
          tokenLink(publicAppUrl, 'cancel-email-change', job.token),
          'The link works once, for as long as the change can be confirmed.',
        ]),
      };
    case 'password_dropped':
      return {
        subject: 'Set a new password for your account',
        text: compose(job.handle, [
          `Your account was just signed in to with ${providerName(job.provider)}, which vouches that this address is yours. The password of the account had been chosen before this address was verified, so it may have been set by someone else who registered your address: it was removed, and every session was signed out.`,
          'You can keep signing in with that provider. To sign in with a password again, choose a new one with this link:',
          tokenLink(publicAppUrl, 'reset-password', job.token),
          `${EXPIRY} You can also ask for a new link from the sign-in page at ${publicAppUrl}.`,
        ]),
      };
    case 'org_invitation':
      return {
        subject: `${job.inviter_handle} invited you to ${job.organization_name}`,
        text: [
          'Hello,',
          `${job.inviter_handle} invited this address to join ${job.organization_name} on ${publicAppUrl}, as ${job.role}. Open this link to accept; if you have no account yet, you can create one with this address first:`,
          tokenLink(publicAppUrl, 'invitations/accept', job.token),
          'The invitation works once, until it expires or is withdrawn. If you do not know the sender, ignore this mail.',
          SIGNATURE,
        ].join('\n\n') + '\n',
      };
    case 'webhook_disabled':
      return {
        subject: `A webhook endpoint of ${job.organization_name} was disabled`,
        text: compose(job.handle, [
          `Every delivery to the webhook endpoint at ${job.endpoint_host} has failed since ${job.failing_since}, so it was disabled: ${job.organization_name}'s events are no longer sent to it.`,
          `Once the endpoint answers again, enable it on the organisation's page at ${publicAppUrl}. Its delivery log there shows what it answered, and which messages to send again.`,
        ]),
      };
    case 'security_notice': {
      const notice = noticeText(job, publicAppUrl);
      return { subject: notice.subject, text: compose(job.handle, [notice.happened, notice.ifNotYou]) };
    }
  }
}
