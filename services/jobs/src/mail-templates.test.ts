import { securityNotices, type MailJob } from '@latchkey/jobs-contract';
import { renderMail } from './mail-templates';

const APP = 'https://app.example.test';
const TOKEN = 'q3Jx-9_Zk2mP0aBcDeFgHiJkLmNoPqRsTuVw';
const recipient = { to: 'ada@example.test', handle: 'ada' };

describe('renderMail()', () => {
  it.each([
    ['verify_email', 'Verify your email address', 'verify-email'],
    ['reset_password', 'Reset your password', 'reset-password'],
    ['confirm_email_change', 'Confirm your new email address', 'confirm-email-change'],
  ] as const)('%s: subject "%s", link to /%s with the raw token', (template, subject, path) => {
    const mail = renderMail({ template, ...recipient, token: TOKEN }, APP);
    expect(mail.subject).toBe(subject);
    expect(mail.text).toContain(`${APP}/${path}?token=${TOKEN}\n`);
    expect(mail.text).toMatch(/^Hello ada,\n/);
    expect(mail.text).toContain('This link expires soon');
  });

  it('keeps a path prefix of PUBLIC_APP_URL and adds no double slash', () => {
    expect(renderMail({ template: 'verify_email', ...recipient, token: TOKEN }, 'https://example.test/app/').text).toContain(
      `https://example.test/app/verify-email?token=${TOKEN}`,
    );
  });

  it('encodes a token that is not base64url instead of breaking the link', () => {
    const mail = renderMail({ template: 'reset_password', ...recipient, token: 'abc&next=https://evil.test/x' }, APP);
    expect(mail.text).toContain(`${APP}/reset-password?token=abc%26next%3Dhttps%3A%2F%2Fevil.test%2Fx`);
  });

  it.each(securityNotices)('security notice %s: says what happened and what to do, with no link token', (notice) => {
    const job: MailJob = { template: 'security_notice', ...recipient, notice, provider: 'github', new_email: 'new@example.test' };
    const mail = renderMail(job, APP);
    expect(mail.subject.length).toBeGreaterThan(10);
    expect(mail.text).toMatch(/^Hello ada,\n/);
    expect(mail.text).toContain('If this was not you');
    expect(mail.text).not.toContain('token=');
  });

  it('gives every notice its own subject', () => {
    const subjects = securityNotices.map((notice) => renderMail({ template: 'security_notice', ...recipient, notice }, APP).subject);
    expect(new Set(subjects).size).toBe(securityNotices.length);
  });

  it('names the new address in the email-changed notice and the provider in OAuth notices', () => {
    expect(
      renderMail({ template: 'security_notice', ...recipient, notice: 'email_changed', new_email: 'new@example.test' }, APP).text,
    ).toContain('changed to new@example.test');
    expect(renderMail({ template: 'security_notice', ...recipient, notice: 'oauth_linked', provider: 'github' }, APP).text).toContain(
      'Signing in with GitHub',
    );
    expect(renderMail({ template: 'security_notice', ...recipient, notice: 'oauth_unlinked' }, APP).text).toContain(
      'Signing in with an external sign-in provider',
    );
  });

  it('names the passkey in passkey notices', () => {
    expect(
      renderMail({ template: 'security_notice', ...recipient, notice: 'passkey_added', passkey_name: 'Work laptop' }, APP).text,
    ).toContain('A passkey ("Work laptop") was just added');
    expect(renderMail({ template: 'security_notice', ...recipient, notice: 'passkey_removed' }, APP).text).toContain(
      'A passkey was just removed',
    );
  });

  it('tells the owner of a passkey that may be cloned that it no longer signs in, and to remove it', () => {
    const mail = renderMail({ template: 'security_notice', ...recipient, notice: 'passkey_suspected_clone', passkey_name: 'Blue key' }, APP);
    expect(mail.subject).toBe('A copy of one of your passkeys may exist');
    expect(mail.text).toContain('A sign-in with your passkey ("Blue key") was just refused');
    expect(mail.text).toContain('signs in to nothing');
    expect(mail.text).toContain(`remove that passkey in your account settings at ${APP}`);
  });

  it('advises a password reset after a password change', () => {
    expect(renderMail({ template: 'security_notice', ...recipient, notice: 'password_changed' }, APP).text).toContain(
      'reset your password',
    );
  });

  it('names what a reset took back and what the account keeps', () => {
    const text = renderMail(
      {
        template: 'security_notice',
        ...recipient,
        notice: 'password_reset',
        removed_methods: ['passkey "Unknown key"', 'GitHub'],
        remaining_methods: ['passkey "Work laptop"', 'Google'],
      },
      APP,
    ).text;
    expect(text).toContain('were removed, in case they were not yours: passkey "Unknown key", GitHub.');
    expect(text).toContain('signed in to with: your new password, passkey "Work laptop", Google.');
    const nothingRemoved = renderMail({ template: 'security_notice', ...recipient, notice: 'password_reset', removed_methods: [], remaining_methods: [] }, APP).text;
    expect(nothingRemoved).not.toContain('were removed');
    expect(nothingRemoved).toContain('signed in to with: your new password.');
  });

  it('announces an email change to the old address with a link that cancels it', () => {
    const mail = renderMail({ template: 'email_change_requested', ...recipient, token: TOKEN, new_email: 'new@example.test' }, APP);
    expect(mail.text).toContain('to new@example.test');
    expect(mail.text).toContain(`${APP}/cancel-email-change?token=${TOKEN}\n`);
  });

  it('explains a dropped password and links to setting a new one', () => {
    const mail = renderMail({ template: 'password_dropped', ...recipient, token: TOKEN, provider: 'google' }, APP);
    expect(mail.subject).toBe('Set a new password for your account');
    expect(mail.text).toContain('signed in to with Google');
    expect(mail.text).toContain(`${APP}/reset-password?token=${TOKEN}\n`);
    const sso = renderMail({ template: 'password_dropped', ...recipient, token: TOKEN, provider: 'sso' }, APP);
    expect(sso.text).toContain('signed in to with your organisation’s single sign-on');
  });
});
