import { randomBytes } from 'node:crypto';
import type { E2eStack } from './e2e-stack';
import { waitFor } from '@latchkey/test-kit';
import { ApiClient } from './api-client';

export const PASSWORD = 'correct horse battery staple';

export function newAccount(label = 'user') {
  const tag = randomBytes(4).toString('hex');
  return { handle: `${label}_${tag}`, email: `${label}.${tag}@example.com`, password: PASSWORD };
}

function mailsWithLink(stack: E2eStack, to: string, path: string) {
  return stack.smtp!.mails.filter((m) => m.to.includes(to.toLowerCase()) && m.text.includes(`/${path}?token=`));
}

/** How many mails with a `<path>` link `to` has received so far. */
export function countMails(stack: E2eStack, to: string, path: string): number {
  return mailsWithLink(stack, to, path).length;
}

/**
 * The token of the `{PUBLIC_APP_URL}/<path>?token=T` link in the newest mail
 * to `to`, once more than `before` such mails have arrived.
 */
export async function mailedToken(stack: E2eStack, to: string, path: string, before = 0): Promise<string> {
  const mails = await waitFor(() => {
    const found = mailsWithLink(stack, to, path);
    return found.length > before ? found : undefined;
  }, { description: `a ${path} mail to ${to}` });
  const text = mails[mails.length - 1]!.text;
  const match = new RegExp(`${stack.env.PUBLIC_APP_URL}/${path}\\?token=([A-Za-z0-9_-]+)`).exec(text);
  if (!match?.[1]) throw new Error(`no ${path} link to ${to} in:\n${text}`);
  return match[1];
}

/** Waits for a plain notice (no link) to `to` whose text matches. */
export function noticeMail(stack: E2eStack, to: string, pattern: RegExp) {
  return stack.smtp!.waitForMail((m) => m.to.includes(to.toLowerCase()) && pattern.test(m.text));
}

/** Registers, verifies and signs in an account; answers its client (with the cookie) and details. */
export async function signedInAccount(stack: E2eStack, label = 'user', headers: Record<string, string> = {}) {
  const account = newAccount(label);
  const client = new ApiClient(stack.gatewayUrl, headers);
  const registered = await client.post<{ id: string }>('/v0/users', account);
  if (registered.status !== 201) throw new Error(`registration failed: ${registered.text}`);
  const token = await mailedToken(stack, account.email, 'verify-email');
  const verified = await client.post('/v0/auth/verify-email', { token });
  if (verified.status !== 200) throw new Error(`verification failed: ${verified.text}`);
  const login = await client.post('/v0/auth/login', { email: account.email, password: account.password });
  if (login.status !== 200) throw new Error(`login failed: ${login.text}`);
  return { ...account, id: registered.body.id, client };
}
