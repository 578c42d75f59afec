import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { Redis } from 'ioredis';
import { hashOpaqueToken } from '@latchkey/opaque-token';
import { sessionKey } from '@latchkey/session-keys';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ApiClient } from '../support/api-client';
import { mailedToken, newAccount, PASSWORD, signedInAccount } from '../support/accounts';
import { totpCode } from '../support/authenticator';
import { addVirtualAuthenticator, inspectPage, launchBrowser, type VirtualAuthenticator } from '../support/browser';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { waitFor } from '@latchkey/test-kit';
import type { GitHubAccount } from '../../services/oauth/test/provider-fixtures';
import { authorizationRequest, client as openid, OidcBrowser, relyingParty, startCallbackReceiver } from '../support/oidc-relying-party';
import { providerEnvironment, startGitHubFixture, startGoogleFixture, type GitHubFixture, type GoogleFixture } from '../support/oauth-providers';

/** The app's address: PUBLIC_APP_URL of the stack, which the browser resolves to the gateway. */
const APP_HOST = 'app.localhost';
const APP = `http://${APP_HOST}`;

// A flow is a dozen pages; on a loaded two-core machine each can take seconds.
jest.setTimeout(60_000);

let stack: E2eStack;
let browser: Browser;
let google: GoogleFixture;
let github: GitHubFixture;
/** The redirect URI of the OpenID clients below: a real local server, where the browser lands with the code. */
let callbacks: Awaited<ReturnType<typeof startCallbackReceiver>>;

beforeAll(async () => {
  [google, github, callbacks] = await Promise.all([startGoogleFixture(), startGitHubFixture(), startCallbackReceiver()]);
  const oidcClients = [
    { client_id: 'browser-app', client_name: 'Browser App', token_endpoint_auth_method: 'none', redirect_uris: [callbacks.url] },
    { client_id: 'browser-own', client_name: 'Own App', token_endpoint_auth_method: 'none', first_party: true, redirect_uris: [callbacks.url] },
    { client_id: 'browser-tv', client_name: 'Browser TV', token_endpoint_auth_method: 'none', grant_types: ['urn:ietf:params:oauth:grant-type:device_code'] },
  ];
  stack = await startE2eStack('browser', {
    PUBLIC_APP_URL: APP,
    ...providerEnvironment(APP, { google, github }),
    OIDC_CLIENTS: JSON.stringify(oidcClients),
  });
  browser = await launchBrowser(APP_HOST, Number(new URL(stack.gatewayUrl).port));
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await stack?.destroy();
  await Promise.all([google?.stop(), github?.stop(), callbacks?.stop()]);
});

/** One person's browser: its own cookies, every page it shows kept and checked for accessibility. */
class Visitor {
  readonly violations: string[] = [];
  private shots = 0;

  private constructor(
    readonly context: BrowserContext,
    /** The tab the person is looking at. */
    public page: Page,
    private readonly label: string,
    /** The browser's authenticator, when it was opened with passkeys. */
    readonly authenticator: VirtualAuthenticator | undefined,
  ) {}

  static async open(label: string, options: { passkeys?: boolean } = {}): Promise<Visitor> {
    const context = await browser.newContext();
    const page = await Visitor.newTab(context);
    const authenticator = options.passkeys ? await addVirtualAuthenticator(context, page) : undefined;
    return new Visitor(context, page, label, authenticator);
  }

  private static async newTab(context: BrowserContext): Promise<Page> {
    const page = await context.newPage();
    // Well inside the test's own timeout, so that a step that never happens is named.
    page.setDefaultTimeout(15_000);
    // window.confirm before deleting a post: the person says yes.
    page.on('dialog', (dialog) => void dialog.accept());
    return page;
  }

  /** Goes on in a new tab of the same browser, as a link opened from a mail does; the other tab stays open. */
  async openTab(): Promise<void> {
    this.page = await Visitor.newTab(this.context);
  }

  /** Waits for the page's heading, then keeps a screenshot and checks it with axe. */
  async sees(heading: string | RegExp): Promise<void> {
    await this.page.getByRole('heading', { level: 1, name: heading }).waitFor();
    this.shots += 1;
    this.violations.push(...(await inspectPage(this.page, `${this.label}-${String(this.shots).padStart(2, '0')}`)));
  }

  async goto(path: string, heading: string | RegExp): Promise<void> {
    await this.page.goto(`${APP}${path}`);
    await this.sees(heading);
  }

  async signIn(email: string, password = PASSWORD): Promise<void> {
    await this.goto('/sign-in', 'Sign in');
    await this.page.getByLabel('Email', { exact: true }).fill(email);
    await this.page.getByLabel('Password', { exact: true }).fill(password);
    await this.page.getByRole('button', { name: 'Sign in', exact: true }).click();
  }

  async signOut(): Promise<void> {
    await this.page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await this.sees('Sign in');
  }

  section(name: string) {
    return this.page.getByRole('region', { name });
  }

  /** Adds a passkey on the account page with the browser's authenticator. */
  async addPasskey(name: string): Promise<void> {
    const passkeys = this.section('Passkeys');
    await passkeys.getByLabel('Name (optional)', { exact: true }).fill(name);
    await passkeys.getByRole('button', { name: 'Add a passkey' }).click();
    await passkeys.getByText(`Passkey “${name}” added.`).waitFor();
  }

  async close(): Promise<void> {
    await this.context.close();
    expect(this.violations).toEqual([]);
  }
}

const tag = () => randomBytes(4).toString('hex');

describe('how the gateway serves the app', () => {
  const page = (pathAndQuery: string, accept = 'text/html') => fetch(`${stack.gatewayUrl}${pathAndQuery}`, { headers: { accept } });

  it('answers every page a browser asks for with the app, under a strict policy that leaks no token', async () => {
    for (const pathAndQuery of ['/', '/verify-email?token=abc', '/reset-password?token=abc', '/account', '/no-such-page']) {
      const response = await page(pathAndQuery);
      expect({ pathAndQuery, status: response.status, type: response.headers.get('content-type') }).toEqual({
        pathAndQuery,
        status: 200,
        type: 'text/html; charset=utf-8',
      });
      const policy = response.headers.get('content-security-policy') ?? '';
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).not.toContain('unsafe-inline');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      // No inline script: everything the page runs is a file of its own.
      expect(await response.text()).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    }
  });

  it('keeps the API’s own answers: problem+json for unknown API paths, whatever the browser accepts', async () => {
    for (const pathAndQuery of ['/v0/nope', '/.well-known/nope', '/healthz/nope']) {
      const response = await page(pathAndQuery);
      expect({ pathAndQuery, status: response.status, type: response.headers.get('content-type') }).toEqual({
        pathAndQuery,
        status: 404,
        type: 'application/problem+json; charset=utf-8',
      });
    }
    expect((await page('/nope', 'application/json')).status).toBe(404);
  });

  it('serves the hashed assets for a year, and under 100 KB of JavaScript gzipped', async () => {
    const assets = path.resolve(__dirname, '../../gateway/web/dist/assets');
    const scripts = readdirSync(assets).filter((name) => name.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(0);
    const gzipped = scripts.reduce((total, name) => total + gzipSync(readFileSync(path.join(assets, name))).length, 0);
    expect(gzipped).toBeLessThan(100 * 1024);
    const response = await page(`/assets/${scripts[0]}`, '*/*');
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });
});

it('signs up, follows the mailed link, signs in, writes a post and finds it by search', async () => {
  const visitor = await Visitor.open('signup');
  const account = newAccount('web');
  await visitor.goto('/sign-up', 'Create an account');
  await visitor.page.getByLabel('Handle', { exact: true }).fill(account.handle);
  await visitor.page.getByLabel('Email', { exact: true }).fill(account.email);
  await visitor.page.getByLabel('Password', { exact: true }).fill(account.password);
  await visitor.page.getByRole('button', { name: 'Create account' }).click();
  await visitor.sees('Check your mail');

  await visitor.goto(`/verify-email?token=${await mailedToken(stack, account.email, 'verify-email')}`, 'Verify your email');
  await visitor.page.getByText('Your email address is verified.').waitFor();
  // The token leaves the address bar once read.
  expect(new URL(visitor.page.url()).search).toBe('');

  await visitor.signIn(account.email);
  await visitor.sees('Your account');
  await visitor.page.getByRole('link', { name: 'Write' }).click();
  await visitor.sees('Write a post');
  const word = `zeppelin${tag()}`;
  const title = `Notes on the ${word}`;
  await visitor.page.getByLabel('Title', { exact: true }).fill(title);
  await visitor.page.getByLabel('Content', { exact: true }).fill(`A ${word} drifts over the hills.`);
  await visitor.page.getByRole('button', { name: 'Publish' }).click();
  await visitor.sees(title);

  // The search index is filled by the worker, shortly after the post is written.
  await waitFor(
    async () => {
      await visitor.page.goto(`${APP}/search?q=${word}`);
      await visitor.page.getByRole('heading', { level: 1 }).waitFor();
      await visitor.page.locator('[aria-busy="false"]').waitFor();
      return (await visitor.page.getByRole('link', { name: title }).count()) === 1 ? true : undefined;
    },
    { timeoutMs: 20_000, intervalMs: 250, description: 'the post in the search results' },
  );
  await visitor.sees(`Search: ${word}`);
  await visitor.page.getByRole('link', { name: title }).click();
  await visitor.sees(title);
  await visitor.close();
});

it('shows the API’s field errors next to their fields', async () => {
  const visitor = await Visitor.open('errors');
  await visitor.goto('/sign-up', 'Create an account');
  await visitor.page.getByLabel('Handle', { exact: true }).fill('x');
  await visitor.page.getByLabel('Email', { exact: true }).fill(`bad.${tag()}@example.com`);
  await visitor.page.getByLabel('Password', { exact: true }).fill('short');
  await visitor.page.getByRole('button', { name: 'Create account' }).click();
  await visitor.page.getByRole('alert').waitFor();
  await expect(visitor.page.getByLabel('Handle', { exact: true }).getAttribute('aria-invalid')).resolves.toBe('true');
  await expect(visitor.page.getByLabel('Password', { exact: true }).getAttribute('aria-invalid')).resolves.toBe('true');
  await visitor.sees('Create an account');
  await visitor.close();
});

it('resets a forgotten password from the mailed link', async () => {
  const account = await signedInAccount(stack, 'webreset');
  const visitor = await Visitor.open('reset');
  await visitor.goto('/forgot-password', 'Reset your password');
  await visitor.page.getByLabel('Email', { exact: true }).fill(account.email);
  await visitor.page.getByRole('button', { name: 'Send link' }).click();
  await visitor.page.getByRole('status').waitFor();
  await visitor.sees('Reset your password');

  await visitor.goto(`/reset-password?token=${await mailedToken(stack, account.email, 'reset-password')}`, 'Choose a new password');
  const newPassword = `new ${PASSWORD} ${tag()}`;
  await visitor.page.getByLabel('New password', { exact: true }).fill(newPassword);
  await visitor.page.getByRole('button', { name: 'Change password' }).click();
  await visitor.sees('Password changed');
  // The page says what a reset takes back, and where the list of it is.
  await visitor.page.getByText(/passkeys and\s+sign-in providers added in the hours before the reset were removed/).waitFor();
  await visitor.page.getByText(/The notice we just mailed you\s+names what was removed/).waitFor();
  await visitor.signIn(account.email, newPassword);
  await visitor.sees('Your account');
  await visitor.close();
});

it('turns on TOTP with the QR code’s key, then signs in with a code', async () => {
  const account = await signedInAccount(stack, 'webtotp');
  const visitor = await Visitor.open('totp');
  await visitor.signIn(account.email);
  await visitor.sees('Your account');
  const totp = visitor.section('Two-factor authentication');
  await totp.getByRole('button', { name: 'Set up' }).click();
  await totp.getByRole('img', { name: 'QR code of the authenticator key' }).waitFor();
  const secret = (await totp.locator('code.secret').textContent())!;
  // The previous time step: the sign-in below uses the current one, and a step is accepted once.
  await totp.getByLabel('Code from the app', { exact: true }).fill(totpCode(secret, -1));
  await totp.getByRole('button', { name: 'Turn on' }).click();
  const backupCodes = totp.getByRole('list', { name: 'Backup codes' });
  await backupCodes.waitFor();
  expect(await backupCodes.getByRole('listitem').count()).toBe(10);
  await visitor.sees('Your account');

  await visitor.signOut();
  await visitor.signIn(account.email);
  await visitor.sees('Two-factor authentication');
  await visitor.page.getByLabel('Authentication code', { exact: true }).fill(totpCode(secret));
  await visitor.page.getByRole('button', { name: 'Verify' }).click();
  await visitor.sees('Your account');
  await visitor.close();
});

it('signs in with a backup code, replaces the backup codes, and turns TOTP off', async () => {
  const account = await signedInAccount(stack, 'webtotpoff');
  const setup = (await account.client.post('/v0/auth/totp/setup')).body as { secret: string; setup_token: string };
  // Every code below comes from one clock reading, a step apart: an accepted step and every earlier one are refused afterwards.
  const now = Date.now();
  const enabled = await account.client.post('/v0/auth/totp/enable', { setup_token: setup.setup_token, code: totpCode(setup.secret, -1, now) });
  const [firstBackupCode] = (enabled.body as { backup_codes: string[] }).backup_codes;

  const visitor = await Visitor.open('totpoff');
  await visitor.signIn(account.email);
  await visitor.sees('Two-factor authentication');
  await visitor.page.getByRole('button', { name: 'Use a backup code' }).click();
  await visitor.page.getByLabel('Backup code', { exact: true }).fill(firstBackupCode!);
  await visitor.page.getByRole('button', { name: 'Verify' }).click();
  await visitor.sees('Your account');
  const totp = visitor.section('Two-factor authentication');
  await totp.getByText('Backup codes left: 9').waitFor();

  await totp.getByLabel('Code from the app', { exact: true }).fill(totpCode(setup.secret, 0, now));
  await totp.getByRole('button', { name: 'New backup codes' }).click();
  const backupCodes = totp.getByRole('list', { name: 'Backup codes' });
  await backupCodes.waitFor();
  expect(await backupCodes.getByRole('listitem').count()).toBe(10);
  expect(await backupCodes.getByText(firstBackupCode!, { exact: true }).count()).toBe(0);
  await totp.getByText('Backup codes left: 10').waitFor();
  await visitor.sees('Your account');

  await totp.getByLabel('Code from the app', { exact: true }).fill(totpCode(setup.secret, 1, now));
  await totp.getByRole('button', { name: 'Turn off (with the code above)' }).click();
  await totp.getByRole('button', { name: 'Set up' }).waitFor();
  await visitor.sees('Your account');
  expect((await account.client.get('/v0/auth/totp/status')).body).toMatchObject({ enabled: false });
  await visitor.close();
});

it('signs up with Google, links GitHub, and signs in with GitHub', async () => {
  const visitor = await Visitor.open('oauth');
  const email = `ada.${tag()}@example.com`;
  await google.nextLogin({ idToken: { sub: `g-${tag()}`, email, email_verified: true, name: 'Ada Lovelace' } });
  await visitor.goto('/sign-in', 'Sign in');
  await visitor.page.getByRole('button', { name: 'Sign in with Google' }).click();
  await visitor.sees('Choose a handle');
  await visitor.page.getByLabel('Handle', { exact: true }).fill(`ada_${tag()}`);
  await visitor.page.getByRole('button', { name: 'Create account' }).click();
  await visitor.sees('Your account');

  const githubId = Math.floor(Math.random() * 1e9);
  const githubLogin: GitHubAccount = {
    user: { id: githubId, login: `ada${githubId}`, name: 'Ada', email: null, avatar_url: 'https://pics.example/ada.png' },
    emails: [{ email, primary: true, verified: true, visibility: 'private' }],
  };
  await github.nextLogin(githubLogin);
  // The account page is still showing while the browser leaves for GitHub: wait for the page it comes back to.
  const backFromGitHub = visitor.page.waitForURL('**/oauth/github/callback?**');
  await visitor.section('Connected accounts').getByRole('button', { name: 'Link GitHub' }).click();
  await backFromGitHub;
  await visitor.section('Connected accounts').getByRole('button', { name: 'Unlink GitHub' }).waitFor();
  await visitor.sees('Your account');

  await visitor.signOut();
  await github.nextLogin(githubLogin);
  await visitor.page.getByRole('button', { name: 'Sign in with GitHub' }).click();
  await visitor.sees('Your account');
  await visitor.close();
});

it('adds a passkey with the browser’s authenticator and signs in with it alone', async () => {
  const account = await signedInAccount(stack, 'webpasskey');
  const visitor = await Visitor.open('passkey', { passkeys: true });
  await visitor.signIn(account.email);
  await visitor.sees('Your account');
  await visitor.addPasskey('This laptop');
  await visitor.section('Passkeys').getByRole('list', { name: 'Your passkeys' }).getByRole('button', { name: 'Rename This laptop' }).waitFor();
  await visitor.sees('Your account');

  await visitor.signOut();
  await visitor.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await visitor.sees('Your account');
  await visitor.section('Profile').getByText(account.email).waitFor();

  const list = visitor.section('Passkeys').getByRole('list', { name: 'Your passkeys' });
  await list.getByRole('button', { name: 'Rename This laptop' }).click();
  await list.getByLabel('New name', { exact: true }).fill('Old laptop');
  await list.getByRole('button', { name: 'Save name' }).click();
  await list.getByRole('button', { name: 'Remove Old laptop' }).click();
  await waitFor(async () => ((await list.getByRole('listitem').count()) === 0 ? true : undefined), { description: 'the passkey removed' });
  await visitor.sees('Your account');
  expect((await account.client.get('/v0/auth/passkeys')).body).toEqual({ items: [] });
  await visitor.close();
});

it('marks a passkey whose counter went back, says why and what to do, and lets the owner remove it', async () => {
  const account = await signedInAccount(stack, 'webclone');
  const visitor = await Visitor.open('clone', { passkeys: true });
  await visitor.signIn(account.email);
  await visitor.sees('Your account');
  await visitor.addPasskey('Blue key');
  await visitor.signOut();
  await visitor.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await visitor.sees('Your account');
  expect(await visitor.section('Passkeys').getByText('May be copied').count()).toBe(0);

  // The authenticator now counts as a copy of its key made before that sign-in would.
  await visitor.signOut();
  await visitor.authenticator!.setSignCounts(0);
  await visitor.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await visitor.page.getByRole('alert').getByText('The passkey response could not be verified.').waitFor();
  await visitor.sees('Sign in');

  await visitor.signIn(account.email);
  await visitor.sees('Your account');
  const item = visitor.section('Passkeys').getByRole('listitem').filter({ hasText: 'Blue key' });
  await item.getByText('May be copied').waitFor();
  await item.getByText('This passkey may have been copied.').waitFor();
  await item.getByText(/It can no longer sign you in/).waitFor();
  const remove = item.getByRole('button', { name: 'Remove Blue key' });
  expect(await remove.getAttribute('aria-describedby')).toMatch(/^passkey-clone-/);
  await visitor.sees('Your account');
  await remove.click();
  await waitFor(async () => ((await visitor.section('Passkeys').getByRole('listitem').count()) === 0 ? true : undefined), {
    description: 'the passkey removed',
  });
  await visitor.close();
});

/**
 * Makes the browser's session's last proof of identity old, as if it had
 * signed in long ago, so that a privileged change asks for a new proof
 * (docs/api.md, "Re-authentication") without the test waiting for it.
 */
async function ageSession(visitor: Visitor): Promise<void> {
  const cookie = (await visitor.context.cookies()).find((candidate) => candidate.name === 'session_id')!;
  const redis = new Redis(stack.env.REDIS_URL!);
  try {
    const key = sessionKey(stack.env.REDIS_KEY_PREFIX!, hashOpaqueToken(cookie.value));
    const stored = JSON.parse((await redis.get(key))!) as { t: number };
    await redis.set(key, JSON.stringify({ ...stored, t: 0 }), 'KEEPTTL');
  } finally {
    redis.disconnect();
  }
}

it('asks a session whose proof is old to prove itself again, then makes the change', async () => {
  const account = await signedInAccount(stack, 'webreauth');
  const visitor = await Visitor.open('reauth');
  await visitor.signIn(account.email);
  await visitor.sees('Your account');
  await ageSession(visitor);
  const profile = visitor.section('Profile');
  const newEmail = `moved.${tag()}@example.com`;
  await profile.getByLabel('New email', { exact: true }).fill(newEmail);
  await profile.getByLabel('Current password', { exact: true }).nth(1).fill(PASSWORD);
  await profile.getByRole('button', { name: 'Change email' }).click();

  const dialog = visitor.page.getByRole('dialog', { name: 'Confirm it is you' });
  await dialog.waitFor();
  visitor.violations.push(...(await inspectPage(visitor.page, 'reauth-dialog')));
  await dialog.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await dialog.getByRole('button', { name: 'Confirm with password' }).click();
  await dialog.waitFor({ state: 'detached' });
  await profile.getByText(`Open the link we sent to ${newEmail} to finish the change.`).waitFor();
  await mailedToken(stack, newEmail, 'confirm-email-change');
  await visitor.close();
});

it('asks an account with TOTP for its password and a code together, then makes the change', async () => {
  const account = await signedInAccount(stack, 'webreauth2fa');
  const setup = (await account.client.post('/v0/auth/totp/setup')).body as { secret: string; setup_token: string };
  const now = Date.now();
  await account.client.post('/v0/auth/totp/enable', { setup_token: setup.setup_token, code: totpCode(setup.secret, -1, now) });
  const visitor = await Visitor.open('reauth2fa');
  await visitor.signIn(account.email);
  await visitor.page.getByLabel('Authentication code', { exact: true }).fill(totpCode(setup.secret, 0, now));
  await visitor.page.getByRole('button', { name: 'Verify' }).click();
  await visitor.sees('Your account');
  await ageSession(visitor);
  const profile = visitor.section('Profile');
  const newEmail = `moved2fa.${tag()}@example.com`;
  await profile.getByLabel('New email', { exact: true }).fill(newEmail);
  await profile.getByLabel('Current password', { exact: true }).nth(1).fill(PASSWORD);
  await profile.getByRole('button', { name: 'Change email' }).click();

  const dialog = visitor.page.getByRole('dialog', { name: 'Confirm it is you' });
  await dialog.waitFor();
  await dialog.getByText('as strong as signing in: your password and a code, or a passkey').waitFor();
  await dialog.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await dialog.getByLabel('Authenticator or backup code', { exact: true }).fill(totpCode(setup.secret, 1, now));
  await dialog.getByRole('button', { name: 'Confirm with password and code' }).click();
  await dialog.waitFor({ state: 'detached' });
  await profile.getByText(`Open the link we sent to ${newEmail} to finish the change.`).waitFor();

  // The old address may cancel it from the link it was sent.
  await visitor.goto(`/cancel-email-change?token=${await mailedToken(stack, account.email, 'cancel-email-change')}`, 'Cancel the email change');
  await visitor.page.getByText('The email change was cancelled: your account keeps this address.').waitFor();
  await visitor.sees('Cancel the email change');
  const confirm = await new ApiClient(stack.gatewayUrl).post('/v0/auth/confirm-email-change', { token: await mailedToken(stack, newEmail, 'confirm-email-change') });
  expect(confirm.body).toMatchObject({ code: 'auth:token_invalid' });
  await visitor.close();
});

it('lists the sessions, marks this one, and signs out the others', async () => {
  const account = await signedInAccount(stack, 'websessions');
  const visitor = await Visitor.open('sessions');
  await visitor.signIn(account.email);
  await visitor.sees('Your account');
  const sessions = visitor.section('Sessions').getByRole('list', { name: 'Your sessions' }).getByRole('listitem');
  await waitFor(async () => ((await sessions.count()) === 2 ? true : undefined), { description: 'both sessions listed' });
  await visitor.section('Sessions').getByText('This session').waitFor();
  await visitor.section('Sessions').getByRole('button', { name: 'Sign out every other session' }).click();
  await waitFor(async () => ((await sessions.count()) === 1 ? true : undefined), { description: 'only this session left' });
  await visitor.sees('Your account');
  expect((await account.client.get('/v0/users/me')).status).toBe(401);
  await visitor.close();
});

it('deletes the account', async () => {
  const account = await signedInAccount(stack, 'webdelete');
  const visitor = await Visitor.open('delete');
  await visitor.signIn(account.email);
  await visitor.sees('Your account');
  const section = visitor.section('Delete account');
  await section.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await section.getByRole('button', { name: 'Delete my account' }).click();
  await visitor.sees('Newest posts');
  await visitor.page.getByRole('link', { name: 'Sign in' }).waitFor();
  const login = await new ApiClient(stack.gatewayUrl).post('/v0/auth/login', { email: account.email, password: PASSWORD });
  expect(login.status).toBe(401);
  await visitor.close();
});

describe('signing in to another application through Latchkey (docs/oidc.md)', () => {
  it('signs in on the interaction page, asks for consent naming the application, and lists it on the account page until revoked', async () => {
    const account = await signedInAccount(stack, 'webrp');
    const config = await relyingParty(stack.gatewayUrl, 'browser-app');
    const request = await authorizationRequest(config, { redirect_uri: callbacks.url });
    const visitor = await Visitor.open('oidc-consent');
    await visitor.page.goto(request.url.toString());
    await visitor.page.getByText('Sign in to continue to Browser App').waitFor();
    await visitor.sees('Sign in');
    await visitor.page.getByLabel('Email', { exact: true }).fill(account.email);
    await visitor.page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await visitor.page.getByRole('button', { name: 'Sign in', exact: true }).click();

    await visitor.sees('Sign in to Browser App');
    const asked = visitor.page.getByRole('list', { name: 'What the application asks for' });
    await asked.getByText('See your email address').waitFor();
    await visitor.page.getByRole('button', { name: 'Allow' }).click();
    const landed = await callbacks.next();
    const tokens = await request.exchange(landed);
    expect(tokens.claims()).toMatchObject({ sub: account.id, aud: 'browser-app', email: account.email });
    // The receiver answers once the request reaches it; the page has landed only when the browser commits it.
    await visitor.page.waitForURL((url) => url.href === landed.href);

    await visitor.goto('/account', 'Your account');
    const applications = visitor.section('Allowed applications');
    await applications.getByRole('button', { name: 'Revoke Browser App' }).click();
    await applications.getByText('No application signs in with your account.').waitFor();
    await visitor.close();
  });

  it('goes straight on to a first-party application after the sign-in, with no consent page', async () => {
    const account = await signedInAccount(stack, 'webown');
    const config = await relyingParty(stack.gatewayUrl, 'browser-own');
    const request = await authorizationRequest(config, { redirect_uri: callbacks.url });
    const visitor = await Visitor.open('oidc-first-party');
    await visitor.page.goto(request.url.toString());
    await visitor.page.getByText('Sign in to continue to Own App').waitFor();
    await visitor.sees('Sign in');
    await visitor.page.getByLabel('Email', { exact: true }).fill(account.email);
    await visitor.page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await visitor.page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const landed = await callbacks.next();
    expect((await request.exchange(landed)).claims()).toMatchObject({ sub: account.id, aud: 'browser-own' });
    await visitor.page.waitForURL((url) => url.href === landed.href);
    await visitor.close();
  });

  it('opens nothing from the link of a sign-in request another browser started, and confirms nothing', async () => {
    const config = await relyingParty(stack.gatewayUrl, 'browser-own');
    const attacker = OidcBrowser.signedOut(stack.gatewayUrl);
    const { url } = await attacker.navigate((await authorizationRequest(config, { redirect_uri: callbacks.url })).url);
    const uid = OidcBrowser.interactionUid(url);

    const victim = await signedInAccount(stack, 'webvictim');
    const visitor = await Visitor.open('oidc-foreign-link');
    await visitor.signIn(victim.email);
    await visitor.sees('Your account');
    const posted: string[] = [];
    visitor.page.on('request', (sent) => {
      if (sent.method() === 'POST') posted.push(new URL(sent.url()).pathname);
    });
    await visitor.goto(`/oidc/interaction/${uid}`, 'Sign-in request not found');
    await visitor.page.getByText('started in another browser').waitFor();
    expect(posted).toEqual([]);
    // The attacker's browser, back at the request, is asked to sign in: no code.
    const resumed = await attacker.navigate(`${APP}/oidc/auth/${uid}`);
    expect(resumed.url.searchParams.get('code')).toBeNull();
    await visitor.close();
  });

  it('signs a new user up with Google from the interaction page and goes on to the application', async () => {
    const config = await relyingParty(stack.gatewayUrl, 'browser-app');
    const request = await authorizationRequest(config, { redirect_uri: callbacks.url });
    const visitor = await Visitor.open('oidc-signup');
    const email = `grace.${tag()}@example.com`;
    await google.nextLogin({ idToken: { sub: `g-${tag()}`, email, email_verified: true, name: 'Grace Hopper' } });
    await visitor.page.goto(request.url.toString());
    await visitor.page.getByText('Sign in to continue to Browser App').waitFor();
    await visitor.page.getByRole('button', { name: 'Sign in with Google' }).click();
    await visitor.sees('Choose a handle');
    await visitor.page.getByLabel('Handle', { exact: true }).fill(`grace_${tag()}`);
    await visitor.page.getByRole('button', { name: 'Create account' }).click();
    // Back on the application's sign-in request, not the account page.
    await visitor.sees('Sign in to Browser App');
    await visitor.page.getByRole('button', { name: 'Allow' }).click();
    const tokens = await request.exchange(await callbacks.next());
    expect(tokens.claims()).toMatchObject({ aud: 'browser-app', email });
    await visitor.close();
  });

  it('asks a signed-in user to confirm it is them for prompt=login, then signs the application in', async () => {
    const account = await signedInAccount(stack, 'webreauth');
    const visitor = await Visitor.open('oidc-reauth');
    await visitor.signIn(account.email);
    await visitor.sees('Your account');
    const config = await relyingParty(stack.gatewayUrl, 'browser-app');
    const request = await authorizationRequest(config, { redirect_uri: callbacks.url, prompt: 'login consent' });
    await visitor.page.goto(request.url.toString());
    await visitor.sees('Sign in to Browser App');
    await visitor.page.getByRole('button', { name: 'Confirm it is me' }).click();
    const dialog = visitor.page.getByRole('dialog', { name: 'Confirm it is you' });
    await dialog.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await dialog.getByRole('button', { name: 'Confirm with password' }).click();
    const landed = await callbacks.next();
    expect(landed.searchParams.get('error')).toBeNull();
    const tokens = await request.exchange(landed);
    expect(tokens.claims()!.sub).toBe(account.id);
    await visitor.close();
  });

  it('signs a device in with the code entered at /device', async () => {
    const account = await signedInAccount(stack, 'webdevice');
    const config = await relyingParty(stack.gatewayUrl, 'browser-tv');
    const device = await openid.initiateDeviceAuthorization(config, { scope: 'openid email' });
    const visitor = await Visitor.open('oidc-device');
    await visitor.signIn(account.email);
    await visitor.sees('Your account');
    await visitor.goto('/device', 'Sign in a device');
    await visitor.page.getByLabel('Code', { exact: true }).fill(device.user_code);
    await visitor.page.getByRole('button', { name: 'Continue' }).click();
    // The code the user typed is sent with a click; the device is then named as a device, and allowed with another.
    await visitor.sees('Allow a device?');
    await visitor.page.getByText('A device, not this browser, will be signed in to your account.').waitFor();
    await visitor.page.getByRole('button', { name: 'Allow the device' }).click();
    await visitor.sees('Device signed in');
    const tokens = await openid.pollDeviceAuthorizationGrant(config, { ...device, interval: 1 });
    expect(tokens.claims()).toMatchObject({ sub: account.id, aud: 'browser-tv' });
    await visitor.close();
  });
});

describe('organisations (docs/api.md, "Organisations")', () => {
  interface Me {
    active_org: { id: string; slug: string; role: string; permissions: string[] } | null;
  }

  /** GET /v0/users/me as the visitor's browser asks it, with its session. */
  const me = (visitor: Visitor) => visitor.page.evaluate<Me>("fetch('/v0/users/me').then((answer) => answer.json())");

  /** What the app left in the browser's storage for an invitation. */
  const keptInvitation = (visitor: Visitor) =>
    visitor.page.evaluate<(string | null)[]>("[sessionStorage.getItem('latchkey.invitation'), localStorage.getItem('latchkey.invitation-handoff')]");

  const memberItem = (visitor: Visitor, handle: string) => visitor.section('Members').getByRole('listitem').filter({ hasText: handle });

  it(
    'creates an organisation and invites a colleague, who signs up from the mailed link, verifies in a new tab, comes back, accepts, acts for it and leaves',
    async () => {
      const owner = await signedInAccount(stack, 'orgowner');
      const founder = await Visitor.open('org-owner');
      await founder.signIn(owner.email);
      await founder.sees('Your account');
      await founder.page.getByRole('link', { name: 'Organisations' }).click();
      await founder.sees('Organisations');
      await founder.page.getByText('You are not a member of any organisation yet.').waitFor();
      const name = `Acme ${tag()}`;
      const slug = `acme-${tag()}`;
      const create = founder.section('New organisation');
      await create.getByLabel('Name', { exact: true }).fill(name);
      await create.getByLabel('Slug', { exact: true }).fill(slug);
      await create.getByRole('button', { name: 'Create organisation' }).click();
      await founder.sees(name);
      await founder.section('About').getByText('owner', { exact: true }).waitFor();
      const orgPath = new URL(founder.page.url()).pathname;

      const colleague = newAccount('colleague');
      const invitations = founder.section('Invitations');
      await invitations.getByLabel('Email', { exact: true }).fill(colleague.email);
      await invitations.getByRole('button', { name: 'Send invitation' }).click();
      await invitations.getByText(`We mailed an invitation to ${colleague.email}.`).waitFor();
      await invitations.getByRole('listitem').filter({ hasText: colleague.email }).getByText('Pending', { exact: true }).waitFor();
      await founder.sees(name);

      // Signed out, with no account yet: the mailed link shows what it invites to, and keeps the token out of the address bar.
      const invited = await Visitor.open('org-invited');
      await invited.goto(`/invitations/accept?token=${await mailedToken(stack, colleague.email, 'invitations/accept')}`, `Join ${name}`);
      expect(new URL(invited.page.url()).search).toBe('');
      await invited.page.getByText(`for ${colleague.email}.`, { exact: false }).waitFor();
      await invited.page.getByRole('main').getByRole('link', { name: 'Create an account' }).click();
      await invited.sees('Create an account');
      await invited.page.getByLabel('Handle', { exact: true }).fill(colleague.handle);
      await invited.page.getByLabel('Email', { exact: true }).fill(colleague.email);
      await invited.page.getByLabel('Password', { exact: true }).fill(colleague.password);
      await invited.page.getByRole('button', { name: 'Create account' }).click();
      await invited.sees('Check your mail');

      // The verification link opens in a new tab, as from a mail client; signing in there comes back to the invitation.
      await invited.openTab();
      await invited.goto(`/verify-email?token=${await mailedToken(stack, colleague.email, 'verify-email')}`, 'Verify your email');
      await invited.page.getByRole('status').getByRole('link', { name: 'Sign in' }).click();
      await invited.sees('Sign in');
      await invited.page.getByLabel('Email', { exact: true }).fill(colleague.email);
      await invited.page.getByLabel('Password', { exact: true }).fill(colleague.password);
      await invited.page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await invited.sees(`Join ${name}`);
      expect(new URL(invited.page.url()).pathname).toBe('/invitations/accept');
      await invited.page.getByRole('button', { name: `Accept and join ${name}` }).click();
      await invited.sees(name);
      expect(new URL(invited.page.url()).pathname).toBe(orgPath);
      await invited.section('About').getByText('member', { exact: true }).waitFor();
      // Nothing of the invitation is left behind in the browser.
      expect(await keptInvitation(invited)).toEqual([null, null]);

      // The owner sees the new member, makes a role of the organisation's own, and gives it.
      await founder.goto(orgPath, name);
      const member = memberItem(founder, colleague.handle);
      await member.getByText(/role: member/).waitFor();
      await member.getByRole('combobox', { name: `Role of ${colleague.handle}` }).selectOption('admin');
      await member.getByRole('button', { name: `Change role of ${colleague.handle}` }).click();
      await member.getByText(/role: admin/).waitFor();
      // An admin's page offers what an admin may do.
      await invited.goto(orgPath, name);
      await invited.section('Invitations').getByRole('button', { name: 'Send invitation' }).waitFor();

      const roles = founder.section('Roles');
      const newRole = roles.getByRole('form', { name: 'New role' });
      await newRole.getByLabel('Name', { exact: true }).fill('billing');
      await newRole.getByLabel('Permissions', { exact: true }).fill('invoices:read, invoices:write\nmembers:read');
      await newRole.getByRole('button', { name: 'Create role' }).click();
      await roles.getByRole('listitem').filter({ hasText: 'billing' }).getByText('invoices:read, invoices:write, members:read').waitFor();
      await member.getByRole('combobox', { name: `Role of ${colleague.handle}` }).selectOption('billing');
      await member.getByRole('button', { name: `Change role of ${colleague.handle}` }).click();
      await member.getByText(/role: billing/).waitFor();
      // A role someone holds stays, and the page says why.
      await roles.getByRole('button', { name: 'Delete the role billing' }).click();
      await roles.getByRole('alert').getByText('Members or pending invitations hold this role.').waitFor();
      // The last owner stays.
      await founder.section('About').getByRole('button', { name: `Leave ${name}` }).click();
      await founder.section('About').getByRole('alert').getByText(/keeps at least one owner/).waitFor();
      await founder.sees(name);

      // The colleague's page, shown before the role changed, still offers to invite: the API refuses, and the page says so.
      await invited.section('Invitations').getByLabel('Email', { exact: true }).fill(`late.${tag()}@example.com`);
      await invited.section('Invitations').getByRole('button', { name: 'Send invitation' }).click();
      await invited.section('Invitations').getByRole('alert').getByText('Your role in this organisation does not allow this.').waitFor();
      await invited.sees(name);

      // Shown again, it offers what the new role allows, and no more; the switcher makes the session act for the organisation.
      await invited.goto(orgPath, name);
      await memberItem(invited, owner.handle).waitFor();
      expect(await invited.section('Invitations').count()).toBe(0);
      expect(await invited.page.getByRole('button', { name: /^Change role/ }).count()).toBe(0);
      expect((await me(invited)).active_org).toBeNull();
      const switcher = invited.page.getByRole('form', { name: 'Organisation' });
      await switcher.getByLabel('Acting for', { exact: true }).selectOption({ label: name });
      await switcher.getByRole('button', { name: 'Switch' }).click();
      await switcher.getByRole('status').getByText(`Now acting for ${name}.`).waitFor();
      const orgId = orgPath.split('/').pop()!;
      expect((await me(invited)).active_org).toEqual({ id: orgId, slug, role: 'billing', permissions: ['invoices:read', 'invoices:write', 'members:read'] });
      await invited.section('About').getByText('acts for it', { exact: true }).waitFor();
      await invited.sees(name);

      await invited.section('About').getByRole('button', { name: `Leave ${name}` }).click();
      await invited.sees('Organisations');
      await invited.page.getByText('You are not a member of any organisation yet.').waitFor();
      expect((await me(invited)).active_org).toBeNull();
      await founder.goto(orgPath, name);
      await founder.section('Members').getByRole('listitem').filter({ hasText: owner.handle }).waitFor();
      expect(await memberItem(founder, colleague.handle).count()).toBe(0);
      await founder.close();
      await invited.close();
    },
    180_000,
  );

  it('shows a revoked link as not valid, offers someone signed in with another address to sign out, and deletes the organisation after a new proof', async () => {
    const owner = await signedInAccount(stack, 'orgrevoke');
    const slug = `revoking-${tag()}`;
    const created = await owner.client.post<{ id: string; name: string }>('/v0/orgs', { name: `Revoking ${tag()}`, slug });
    expect(created.status).toBe(201);
    const { id: orgId, name } = created.body;
    const revokedEmail = `revoked.${tag()}@example.com`;
    const otherEmail = `other.${tag()}@example.com`;
    for (const email of [revokedEmail, otherEmail]) {
      expect((await owner.client.post(`/v0/orgs/${orgId}/invitations`, { email, role: 'member' })).status).toBe(201);
    }

    const founder = await Visitor.open('org-revoke');
    await founder.signIn(owner.email);
    await founder.sees('Your account');
    await founder.goto(`/orgs/${orgId}`, name);
    const invitations = founder.section('Invitations');
    await invitations.getByRole('button', { name: `Revoke the invitation of ${revokedEmail}` }).click();
    await invitations.getByRole('listitem').filter({ hasText: revokedEmail }).getByText('Revoked', { exact: true }).waitFor();
    await founder.sees(name);

    const stranger = await Visitor.open('org-revoked-link');
    await stranger.goto(`/invitations/accept?token=${await mailedToken(stack, revokedEmail, 'invitations/accept')}`, 'Invitation not valid');
    await stranger.page.getByRole('alert').getByText('The invitation is unknown, used, revoked or expired.').waitFor();
    expect(await keptInvitation(stranger)).toEqual([null, null]);
    await stranger.close();

    // The owner opens a link meant for another address: the page names it, and signing out leads to signing in as that address.
    await founder.goto(`/invitations/accept?token=${await mailedToken(stack, otherEmail, 'invitations/accept')}`, `Join ${name}`);
    const mismatch = founder.page.getByRole('alert');
    await mismatch.getByText(`This invitation is for ${otherEmail}, and you are signed in as ${owner.email}.`, { exact: false }).waitFor();
    expect(await founder.page.getByRole('button', { name: `Accept and join ${name}` }).count()).toBe(0);
    await founder.sees(`Join ${name}`);
    await founder.page.getByRole('main').getByRole('button', { name: 'Sign out' }).click();
    await founder.page.getByRole('main').getByRole('link', { name: 'Sign in' }).waitFor();
    await founder.sees(`Join ${name}`);

    // Signing in from anywhere while the tab holds the invitation comes back to it; "Not now" lets it go.
    await founder.signIn(owner.email);
    await founder.sees(`Join ${name}`);
    await founder.page.getByRole('button', { name: 'Not now' }).click();
    await founder.sees('Newest posts');
    expect(await keptInvitation(founder)).toEqual([null, null]);

    // Deleting the organisation asks an old session for a new proof first.
    await founder.goto(`/orgs/${orgId}`, name);
    await ageSession(founder);
    await founder.section('Delete organisation').getByRole('button', { name: `Delete ${name}` }).click();
    const dialog = founder.page.getByRole('dialog', { name: 'Confirm it is you' });
    await dialog.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await dialog.getByRole('button', { name: 'Confirm with password' }).click();
    await founder.sees('Organisations');
    await founder.page.getByText('You are not a member of any organisation yet.').waitFor();
    expect((await owner.client.get(`/v0/orgs/${orgId}`)).status).toBe(404);
    await founder.close();
  });
});
