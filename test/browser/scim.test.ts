import { randomBytes } from 'node:crypto';
import { waitFor } from '@latchkey/test-kit';
import type { Browser, Page } from 'playwright-core';
import { ApiClient } from '../support/api-client';
import { countMails, mailedToken, signedInAccount } from '../support/accounts';
import { inspectPage, launchBrowser } from '../support/browser';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';

/**
 * The organisation page's SCIM section (docs/web-app.md, docs/scim.md), in
 * Chromium against the whole stack: an owner issues a token and sees it
 * once, the test provisions a group with it through /scim/v2 as an identity
 * provider would, the owner maps the group to a role and revokes the token;
 * a member without scim:manage sees no section. Every page is checked with
 * axe.
 */
const APP_HOST = 'app.localhost';
const APP = `http://${APP_HOST}`;
const SCIM_JSON = 'application/scim+json';

jest.setTimeout(90_000);

let stack: E2eStack;
let browser: Browser;
const tag = () => randomBytes(4).toString('hex');

beforeAll(async () => {
  stack = await startE2eStack('browser-scim', { PUBLIC_APP_URL: APP });
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
    violations.push(...(await inspectPage(page, `scim-${label}-${String(shots).padStart(2, '0')}`)));
  };
  await page.goto(`${APP}/sign-in`);
  await sees('Sign in');
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await sees('Your account');
  return { page, sees };
}

function scimCall(token: string, method: string, path: string, json?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (json !== undefined) headers['content-type'] = SCIM_JSON;
  return new ApiClient(stack.gatewayUrl).request<{ id: string }>(method, `/scim/v2${path}`, { headers, ...(json === undefined ? {} : { body: JSON.stringify(json) }) });
}

describe('an organisation’s SCIM provisioning in the browser', () => {
  it('issues a token shown once, shows the group its identity provider pushed, maps it to a role, revokes the token, and hides all of it from a plain member', async () => {
    const owner = await signedInAccount(stack, 'scimweb');
    const name = `Globex ${tag()}`;
    const created = await owner.client.post<{ id: string }>('/v0/orgs', { name, slug: `globex-${tag()}` });
    expect(created.status).toBe(201);
    const orgId = created.body.id;
    const colleague = await signedInAccount(stack, 'scimmember');
    const before = countMails(stack, colleague.email, 'invitations/accept');
    expect((await owner.client.post(`/v0/orgs/${orgId}/invitations`, { email: colleague.email, role: 'member' })).status).toBe(201);
    const invitation = await mailedToken(stack, colleague.email, 'invitations/accept', before);
    expect((await colleague.client.post('/v0/invitations/accept', { token: invitation })).status).toBe(200);

    const violations: string[] = [];
    const admin = await openPage('admin', owner.email, owner.password, violations);
    await admin.page.goto(`${APP}/orgs/${orgId}`);
    await admin.sees(name);
    const section = admin.page.getByRole('region', { name: 'SCIM provisioning' });
    await section.getByText(`${APP}/scim/v2`, { exact: true }).waitFor();
    await section.getByText('No SCIM token yet.').waitFor();
    await section.getByText('The identity provider has pushed no group yet.').waitFor();
    await section.getByRole('button', { name: 'Copy the SCIM base URL' }).click();
    await section.getByText('Copied.').waitFor();
    expect(await admin.page.evaluate('navigator.clipboard.readText()')).toBe(`${APP}/scim/v2`);

    // The token, shown once: after a reload only its description is left.
    await section.getByLabel('Description', { exact: true }).fill('Okta');
    await section.getByRole('button', { name: 'Create token' }).click();
    const shown = section.getByRole('status').filter({ hasText: 'shown this once' });
    const token = (await shown.locator('code').textContent()) ?? '';
    expect(token).toMatch(/^lk_scim_/);
    const tokens = section.getByRole('list', { name: 'SCIM tokens' });
    await tokens.getByText('never used').waitFor();
    await admin.sees(name);
    await admin.page.reload();
    await admin.sees(name);
    await tokens.getByText('Okta', { exact: true }).waitFor();
    expect(await admin.page.content()).not.toContain(token);

    // The identity provider pushes a group; the page shows it and the sync.
    const group = await scimCall(token, 'POST', '/Groups', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'Engineering' });
    expect(group.status).toBe(201);
    await admin.page.reload();
    await admin.sees(name);
    await tokens.getByText(/last used/).waitFor();
    expect(await section.getByText('Never', { exact: true }).count()).toBe(0);
    const groups = section.getByRole('list', { name: 'SCIM groups' });
    await groups.getByText('Engineering', { exact: true }).waitFor();
    await groups.getByText(/^0 members/).waitFor();
    const roleSelect = groups.getByLabel('Role of the group Engineering');
    expect(await roleSelect.inputValue()).toBe('');
    expect(await roleSelect.locator('option[value="owner"]').count()).toBe(0);
    await roleSelect.selectOption('admin');
    await waitFor(async () => {
      const listed = await owner.client.get<{ items: { id: string; role: string | null }[] }>(`/v0/orgs/${orgId}/scim/groups`);
      return listed.body.items.find((item) => item.id === group.body.id && item.role === 'admin');
    });
    await roleSelect.selectOption('');
    await waitFor(async () => {
      const listed = await owner.client.get<{ items: { id: string; role: string | null }[] }>(`/v0/orgs/${orgId}/scim/groups`);
      return listed.body.items.find((item) => item.id === group.body.id && item.role === null);
    });
    await admin.sees(name);

    // Revoked in the page: the identity provider's next call is refused.
    await tokens.getByRole('button', { name: 'Revoke the token Okta' }).click();
    await section.getByText('No SCIM token yet.').waitFor();
    expect((await scimCall(token, 'GET', '/Groups')).status).toBe(401);

    // A member without scim:manage: no section, and the API agrees.
    const member = await openPage('member', colleague.email, colleague.password, violations);
    await member.page.goto(`${APP}/orgs/${orgId}`);
    await member.sees(name);
    await member.page.getByRole('heading', { level: 2, name: 'About' }).waitFor();
    expect(await member.page.getByRole('region', { name: 'SCIM provisioning' }).count()).toBe(0);
    expect(await colleague.client.get(`/v0/orgs/${orgId}/scim/groups`)).toMatchObject({ status: 403, body: { code: 'org:forbidden' } });

    expect(violations).toEqual([]);
  });
});
