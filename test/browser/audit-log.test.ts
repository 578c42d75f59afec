import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { waitFor } from '@latchkey/test-kit';
import type { Browser, Page } from 'playwright-core';
import { countMails, mailedToken, signedInAccount } from '../support/accounts';
import { inspectPage, launchBrowser } from '../support/browser';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';

/**
 * The organisation page's audit log (docs/web-app.md, docs/audit.md), in
 * Chromium against the whole stack: an owner's changes and sign-in are
 * listed newest first, filtered by action, paged with "Load more" and
 * exported as NDJSON; a member without audit:read sees no section. Every
 * page is checked with axe.
 */
const APP_HOST = 'app.localhost';
const APP = `http://${APP_HOST}`;
/** The section's page size: one rename more than fits makes a second page. */
const PAGE_SIZE = 50;

jest.setTimeout(120_000);

let stack: E2eStack;
let browser: Browser;
const tag = () => randomBytes(4).toString('hex');

beforeAll(async () => {
  stack = await startE2eStack('browser-audit', { PUBLIC_APP_URL: APP, RATE_LIMIT_IP_MAX: '100000' });
  browser = await launchBrowser(APP_HOST, Number(new URL(stack.gatewayUrl).port));
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await stack?.destroy();
});

async function openPage(label: string, email: string, password: string, violations: string[]): Promise<{ page: Page; sees: (heading: string) => Promise<void> }> {
  const context = await browser.newContext({ acceptDownloads: true });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  let shots = 0;
  const sees = async (heading: string) => {
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    shots += 1;
    violations.push(...(await inspectPage(page, `audit-${label}-${String(shots).padStart(2, '0')}`)));
  };
  await page.goto(`${APP}/sign-in`);
  await sees('Sign in');
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await sees('Your account');
  return { page, sees };
}

describe('an organisation’s audit log in the browser', () => {
  it('lists changes and sign-ins newest first, filters by action, loads more, exports NDJSON, and is hidden from a member without audit:read', async () => {
    const owner = await signedInAccount(stack, 'auditweb');
    const slug = `initech-${tag()}`;
    const created = await owner.client.post<{ id: string }>('/v0/orgs', { name: 'Initech', slug });
    expect(created.status).toBe(201);
    const orgId = created.body.id;
    const colleague = await signedInAccount(stack, 'auditwebmember');
    const before = countMails(stack, colleague.email, 'invitations/accept');
    expect((await owner.client.post(`/v0/orgs/${orgId}/invitations`, { email: colleague.email, role: 'member' })).status).toBe(201);
    const invitation = await mailedToken(stack, colleague.email, 'invitations/accept', before);
    expect((await colleague.client.post('/v0/invitations/accept', { token: invitation })).status).toBe(200);
    // Renames enough for a second page; the last name is the one the page shows.
    const name = `Initech ${tag()}`;
    for (let rename = 1; rename <= PAGE_SIZE; rename += 1) {
      expect((await owner.client.patch(`/v0/orgs/${orgId}`, { name: rename === PAGE_SIZE ? name : `Initech ${rename}` })).status).toBe(200);
    }

    const violations: string[] = [];
    const admin = await openPage('owner', owner.email, owner.password, violations);
    await admin.page.goto(`${APP}/orgs/${orgId}`);
    await admin.sees(name);
    const section = admin.page.getByRole('region', { name: 'Audit log' });
    const entries = section.getByRole('list', { name: 'Audit log entries' }).getByRole('listitem');
    const actions = () => entries.locator('strong').allTextContents();
    // The browser's sign-in just now is the newest entry, then the renames.
    await entries.first().getByText('auth.sign_in', { exact: true }).waitFor();
    expect((await actions()).slice(0, 3)).toEqual(['auth.sign_in', 'org.updated', 'org.updated']);
    expect(await entries.count()).toBe(PAGE_SIZE);
    await entries.first().getByText(`method: password`).waitFor();

    // Five entries before the renames: created, the owner added, the invitation created and accepted, the member added.
    await section.getByRole('button', { name: 'Load more' }).click();
    await entries.nth(PAGE_SIZE).waitFor();
    expect(await entries.count()).toBe(PAGE_SIZE + 6);
    expect((await actions()).at(-1)).toBe('org.created');
    expect(await section.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    await admin.sees(name);

    await section.getByLabel('Action', { exact: true }).fill('org.member.added');
    await section.getByRole('button', { name: 'Filter' }).click();
    await waitFor(async () => ((await entries.count()) === 2 ? true : undefined), { description: "the two org.member.added entries" });
    expect(await actions()).toEqual(['org.member.added', 'org.member.added']);
    await entries.first().getByText(colleague.id, { exact: true }).first().waitFor();
    await admin.sees(name);

    const downloading = admin.page.waitForEvent('download');
    await section.getByRole('link', { name: 'Export as NDJSON' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe(`audit-log-${slug}.ndjson`);
    const lines = (await readFile(await download.path(), 'utf8')).trimEnd().split('\n');
    const exported = lines.map((line) => JSON.parse(line) as { seq: number; action: string });
    expect(exported.map((entry) => entry.seq)).toEqual(exported.map((_entry, index) => index + 1));
    expect(exported.map((entry) => entry.action)).toEqual(expect.arrayContaining(['org.created', 'org.member.added', 'auth.sign_in']));

    // A member without audit:read: no section, and the API agrees.
    const member = await openPage('member', colleague.email, colleague.password, violations);
    await member.page.goto(`${APP}/orgs/${orgId}`);
    await member.sees(name);
    await member.page.getByRole('heading', { level: 2, name: 'About' }).waitFor();
    expect(await member.page.getByRole('region', { name: 'Audit log' }).count()).toBe(0);
    expect(await colleague.client.get(`/v0/orgs/${orgId}/audit-log`)).toMatchObject({ status: 403, body: { code: 'org:forbidden' } });

    expect(violations).toEqual([]);
  });
});
