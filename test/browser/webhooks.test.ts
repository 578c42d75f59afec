import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { waitFor } from '@latchkey/test-kit';
import { webhookEventTypes } from '../../services/identity/src/orgs/webhooks';
import { countMails, mailedToken, signedInAccount } from '../support/accounts';
import { inspectPage, launchBrowser } from '../support/browser';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { startWebhookReceiver, typeOf } from '../support/webhook-receiver';

/**
 * The organisation page's webhooks section (docs/web-app.md,
 * docs/webhooks.md), in Chromium against the whole stack: an owner
 * registers an endpoint and sees its secret once, is told what the API
 * refuses, changes its events, disables and enables it, rotates its secret
 * and deletes it; a member without webhooks:manage sees no section; the
 * owner sends a test message, reads in the delivery log that it failed, and
 * sends it again once the receiver answers. Every page is checked with axe.
 */
const APP_HOST = 'app.localhost';
const APP = `http://${APP_HOST}`;

jest.setTimeout(90_000);

let stack: E2eStack;
let browser: Browser;
const tag = () => randomBytes(4).toString('hex');

beforeAll(async () => {
  // The stack's own sealing key pair: the jobs worker delivers what the page sends.
  stack = await startE2eStack('browser-webhooks', { PUBLIC_APP_URL: APP, WEBHOOK_RETRY_SCHEDULE_SECONDS: '60' });
  browser = await launchBrowser(APP_HOST, Number(new URL(stack.gatewayUrl).port));
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await stack?.destroy();
});

async function openPage(label: string, email: string, password: string, violations: string[]): Promise<{ page: Page; sees: (heading: string) => Promise<void> }> {
  const context = await browser.newContext();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: APP });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  page.on('dialog', (dialog) => void dialog.accept());
  let shots = 0;
  const sees = async (heading: string) => {
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    shots += 1;
    violations.push(...(await inspectPage(page, `webhooks-${label}-${String(shots).padStart(2, '0')}`)));
  };
  await page.goto(`${APP}/sign-in`);
  await sees('Sign in');
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await sees('Your account');
  return { page, sees };
}

interface Endpoint {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
}

describe('an organisation’s webhooks in the browser', () => {
  it('registers an endpoint with its secret shown once, changes its events, disables, rotates and deletes it, and hides all of it from a plain member', async () => {
    const owner = await signedInAccount(stack, 'hookweb');
    const name = `Initech ${tag()}`;
    const created = await owner.client.post<{ id: string }>('/v0/orgs', { name, slug: `initech-${tag()}` });
    expect(created.status).toBe(201);
    const orgId = created.body.id;
    const colleague = await signedInAccount(stack, 'hookmember');
    const before = countMails(stack, colleague.email, 'invitations/accept');
    expect((await owner.client.post(`/v0/orgs/${orgId}/invitations`, { email: colleague.email, role: 'member' })).status).toBe(201);
    const invitation = await mailedToken(stack, colleague.email, 'invitations/accept', before);
    expect((await colleague.client.post('/v0/invitations/accept', { token: invitation })).status).toBe(200);
    const endpoints = async () => (await owner.client.get<{ items: Endpoint[] }>(`/v0/orgs/${orgId}/webhooks`)).body.items;

    const violations: string[] = [];
    const admin = await openPage('admin', owner.email, owner.password, violations);
    await admin.page.goto(`${APP}/orgs/${orgId}`);
    await admin.sees(name);
    const section = admin.page.getByRole('region', { name: 'Webhooks' });
    await section.getByText('No endpoint yet.').waitFor();

    // The form offers every type identity accepts, in its order, and "All events" to begin with.
    const form = section.getByRole('form', { name: 'New webhook endpoint' });
    expect(await form.locator('.event-choice code').allTextContents()).toEqual(webhookEventTypes);
    const all = form.getByRole('checkbox', { name: 'All events' });
    expect(await all.isChecked()).toBe(true);
    expect(await form.getByRole('checkbox', { name: /^org\.member\.added/ }).isDisabled()).toBe(true);

    // Nothing ticked: the API's refusal shows beside the events, and nothing is made.
    const url = `http://127.0.0.1:${9000 + Math.floor(Math.random() * 1000)}/hook`;
    await form.getByLabel('URL', { exact: true }).fill(url);
    await form.getByLabel('Description', { exact: true }).fill('CRM sync');
    await all.uncheck();
    await form.getByRole('button', { name: 'Create endpoint' }).click();
    await section.getByRole('alert').waitFor();
    expect(await form.getByRole('group', { name: 'Events' }).locator('.field-error').textContent()).toMatch(/1/);
    await admin.sees(name);
    expect(await endpoints()).toEqual([]);

    // Made with all events: the secret is shown this once, with a copy button.
    await all.check();
    await form.getByRole('button', { name: 'Create endpoint' }).click();
    const shown = section.getByRole('status').filter({ hasText: 'shown this once' });
    const secret = (await shown.locator('code.secret').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await shown.getByRole('button', { name: 'Copy the secret' }).click();
    await shown.getByText('Copied.').waitFor();
    expect(await admin.page.evaluate('navigator.clipboard.readText()')).toBe(secret);
    const list = section.getByRole('list', { name: 'Webhook endpoints' });
    const item = list.getByRole('listitem').filter({ hasText: url });
    await item.getByText('CRM sync', { exact: true }).waitFor();
    await item.getByText(/^All events; created/).waitFor();
    await item.getByText('Enabled', { exact: true }).waitFor();
    await admin.sees(name);
    const [endpoint] = await endpoints();
    expect(endpoint).toMatchObject({ url, events: ['*'], enabled: true });

    // After a reload the endpoint is listed, and its secret is nowhere.
    await admin.page.reload();
    await admin.sees(name);
    await item.getByText('CRM sync', { exact: true }).waitFor();
    expect(await admin.page.content()).not.toContain(secret.slice('whsec_'.length));

    // Two event types instead of all of them.
    await item.getByRole('button', { name: `Edit the endpoint ${url}` }).click();
    const edit = item.getByRole('form', { name: `Edit the endpoint ${url}` });
    await edit.getByRole('checkbox', { name: 'All events' }).uncheck();
    await edit.getByRole('checkbox', { name: /^org\.member\.added/ }).check();
    await edit.getByRole('checkbox', { name: /^org\.member\.removed/ }).check();
    await admin.sees(name);
    await edit.getByRole('button', { name: 'Save' }).click();
    await item.getByText(/^org\.member\.added, org\.member\.removed; created/).waitFor();
    expect(await endpoints()).toEqual([expect.objectContaining({ url, events: ['org.member.added', 'org.member.removed'], enabled: true })]);

    // Disabled, then enabled again.
    await item.getByRole('button', { name: `Disable the endpoint ${url}` }).click();
    await item.getByText('Disabled', { exact: true }).waitFor();
    await admin.sees(name);
    expect(await endpoints()).toEqual([expect.objectContaining({ enabled: false })]);
    await item.getByRole('button', { name: `Enable the endpoint ${url}` }).click();
    await item.getByText('Enabled', { exact: true }).waitFor();
    expect(await endpoints()).toEqual([expect.objectContaining({ enabled: true })]);

    // A new secret, shown once, and until when the old one signs beside it (24 hours).
    await item.getByRole('button', { name: `Rotate the secret of ${url}` }).click();
    const rotated = section.getByRole('status').filter({ hasText: 'keeps signing beside it until' });
    const newSecret = (await rotated.locator('code.secret').textContent()) ?? '';
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(secret);
    const tomorrow = await admin.page.evaluate('new Date(Date.now() + 24 * 3600 * 1000).toLocaleDateString()');
    expect(await rotated.textContent()).toContain(String(tomorrow));
    await admin.sees(name);

    // Deleted after the confirmation, and its secret goes with it.
    await item.getByRole('button', { name: `Delete the endpoint ${url}` }).click();
    await section.getByText('No endpoint yet.').waitFor();
    expect(await admin.page.content()).not.toContain(newSecret.slice('whsec_'.length));
    await admin.sees(name);
    expect(await endpoints()).toEqual([]);

    // A member without webhooks:manage: no section, and the API agrees.
    const member = await openPage('member', colleague.email, colleague.password, violations);
    await member.page.goto(`${APP}/orgs/${orgId}`);
    await member.sees(name);
    await member.page.getByRole('heading', { level: 2, name: 'About' }).waitFor();
    expect(await member.page.getByRole('region', { name: 'Webhooks' }).count()).toBe(0);
    expect(await colleague.client.get(`/v0/orgs/${orgId}/webhooks`)).toMatchObject({ status: 403, body: { code: 'org:forbidden' } });

    expect(violations).toEqual([]);
  });

  it('sends a test message from the page, shows each attempt in the delivery log, and sends a failed one again', async () => {
    const owner = await signedInAccount(stack, 'hooklog');
    const name = `Globex ${tag()}`;
    const created = await owner.client.post<{ id: string }>('/v0/orgs', { name, slug: `globex-${tag()}` });
    const orgId = created.body.id;
    // Down at first, as a receiver being deployed.
    let status = 500;
    const receiver = await startWebhookReceiver(() => status);
    try {
      expect((await owner.client.post(`/v0/orgs/${orgId}/webhooks`, { url: receiver.url, events: ['org.member.added'], description: '' })).status).toBe(201);
      const violations: string[] = [];
      const admin = await openPage('log', owner.email, owner.password, violations);
      await admin.page.goto(`${APP}/orgs/${orgId}`);
      await admin.sees(name);
      const item = admin.page.getByRole('region', { name: 'Webhooks' }).getByRole('list', { name: 'Webhook endpoints' }).getByRole('listitem').filter({ hasText: receiver.url });
      await item.getByText(`Deliveries to ${receiver.url}`, { exact: true }).click();
      await item.getByText('No attempts yet.').waitFor();
      await admin.sees(name);

      await item.getByRole('button', { name: `Send a test message to ${receiver.url}` }).click();
      await item.getByText('A test message is on its way.', { exact: false }).waitFor();
      const log = item.getByRole('list', { name: `Deliveries to ${receiver.url}` });
      const refresh = item.getByRole('button', { name: `Refresh the deliveries to ${receiver.url}` });
      const failed = log.getByRole('listitem').filter({ hasText: 'Failed, answered 500' });
      await waitFor(async () => (await refresh.click(), (await failed.count()) === 1 ? true : undefined), { timeoutMs: 20_000, intervalMs: 500, description: 'the failed attempt in the log' });
      await failed.getByText('webhook.test', { exact: true }).waitFor();
      await admin.sees(name);
      expect(receiver.received.map(typeOf)).toEqual(['webhook.test']);

      // The receiver works now: the failed message again, by hand, with its webhook-id.
      status = 204;
      await failed.getByRole('button', { name: /^Send again message / }).click();
      await item.getByText(/is sent again/).waitFor();
      const delivered = log.getByRole('listitem').filter({ hasText: 'Delivered, answered 204' });
      await waitFor(async () => (await refresh.click(), (await delivered.count()) === 1 ? true : undefined), { timeoutMs: 20_000, intervalMs: 500, description: 'the delivery in the log' });
      expect(receiver.received.map((delivery) => delivery.headers['webhook-id'])).toEqual([receiver.received[0]!.headers['webhook-id'], receiver.received[0]!.headers['webhook-id']]);
      await admin.sees(name);
      expect(violations).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});
