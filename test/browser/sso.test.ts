import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startDnsServer, waitFor, type DnsServer } from '@latchkey/test-kit';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ApiClient } from '../support/api-client';
import { mailedToken, PASSWORD, signedInAccount } from '../support/accounts';
import { totpCode } from '../support/authenticator';
import { inspectPage, launchBrowser } from '../support/browser';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { providerEnvironment } from '../support/oauth-providers';
import { authorizationRequest, relyingParty, startCallbackReceiver } from '../support/oidc-relying-party';
import { startOidcProvider, type OidcClaims, type ProviderFixture } from '../../services/oauth/test/provider-fixtures';
import { authnRequestOf, SamlIdentityProvider } from '../../services/oauth/test/saml-identity-provider';
import { totpSetupSchema } from '../../gateway/src/totp/totp-schemas';

/**
 * Enterprise SSO in the web app (docs/web-app.md, docs/api.md "Enterprise
 * SSO"), in Chromium against the whole stack: an owner proves a domain
 * through a real DNS server, connects a samlify IdP from its metadata and
 * enforces SSO; colleagues sign in through the IdP, which is a real HTTP
 * server here, posting its signed response from its own origin as an IdP
 * does; refusals and failures read as what they are. Every page is checked
 * with axe.
 */
const APP_HOST = 'app.localhost';
const APP = `http://${APP_HOST}`;
const MINUTE = 60_000;

jest.setTimeout(90_000);

let stack: E2eStack;
let browser: Browser;
let dns: DnsServer;
let idpServer: Server;
let idpOrigin: string;
/** The redirect URI of the application below: a real local server, where the browser lands with the code. */
let callbacks: Awaited<ReturnType<typeof startCallbackReceiver>>;
/** An OpenID Provider (oauth2-mock-server) in a process of its own, for OpenID Connect connections. */
let oidc: ProviderFixture<{ idToken: OidcClaims; userinfo?: OidcClaims }>;
const idp = new SamlIdentityProvider('https://idp.sso-web.test/metadata');
/** Who the IdP signs in at the next request: the person at its login page. */
let idpUser = '';

const tag = () => randomBytes(4).toString('hex');

/** The page a SAML IdP answers a request with: the signed response in a form that posts itself to the ACS. */
async function idpAnswer(url: string): Promise<string> {
  const { id, xml } = authnRequestOf(url);
  const acsUrl = /AssertionConsumerServiceURL="([^"]+)"/.exec(xml)?.[1];
  const entityId = /Issuer[^>]*>([^<]+)</.exec(xml)?.[1];
  if (!acsUrl || !entityId) throw new Error(`an AuthnRequest without ACS URL or issuer: ${xml}`);
  const now = Date.now();
  const samlResponse = await idp.signedResponse(
      { entityId, acsUrl },
      {
        issuer: idp.entityId,
        nameId: idpUser,
        inResponseTo: id,
        audience: entityId,
        recipient: acsUrl,
        destination: acsUrl,
        notBefore: new Date(now - MINUTE),
        notOnOrAfter: new Date(now + 5 * MINUTE),
        attributes: { email: [idpUser], name: ['Casey Colleague'] },
      },
  );
  return `<!doctype html><html lang="en"><head><title>IdP</title></head><body onload="document.forms[0].submit()"><form method="post" action="${acsUrl}"><input type="hidden" name="SAMLResponse" value="${samlResponse}"></form></body></html>`;
}

function idpMetadataXml(): string {
  const der = idp.keys.certificate.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '');
  return `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${idp.entityId}"><md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"><md:KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>${der}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor><md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${idpOrigin}/sso"/></md:IDPSSODescriptor></md:EntityDescriptor>`;
}

beforeAll(async () => {
  [dns, callbacks, oidc] = await Promise.all([startDnsServer(), startCallbackReceiver(), startOidcProvider()]);
  idpServer = createServer((request, response) => {
    idpAnswer(new URL(request.url ?? '/', idpOrigin).toString()).then(
      (page) => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page),
      (error: unknown) => response.writeHead(400, { 'content-type': 'text/plain' }).end(String(error)),
    );
  });
  await new Promise<void>((resolve) => idpServer.listen(0, '127.0.0.1', resolve));
  idpOrigin = `http://127.0.0.1:${(idpServer.address() as AddressInfo).port}`;
  stack = await startE2eStack('browser-sso', {
    PUBLIC_APP_URL: APP,
    SSO_PUBLIC_URL: APP,
    SSO_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    // The OpenID Provider listens on 127.0.0.1.
    SSO_ALLOW_PRIVATE_ISSUERS: 'true',
    DNS_SERVERS: dns.address,
    // The same OpenID Provider stands in for Google: a Google sign-in of an enforced domain is refused.
    ...providerEnvironment(APP, { google: oidc }),
    OIDC_CLIENTS: JSON.stringify([{ client_id: 'sso-app', client_name: 'SSO App', token_endpoint_auth_method: 'none', redirect_uris: [callbacks.url] }]),
  });
  browser = await launchBrowser(APP_HOST, Number(new URL(stack.gatewayUrl).port));
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await stack?.destroy();
  await Promise.all([dns?.close(), callbacks?.stop(), oidc?.stop()]);
  await new Promise((resolve) => idpServer?.close(resolve));
});

/** One person's browser; every page it shows is checked with axe. */
class Visitor {
  readonly violations: string[] = [];
  private shots = 0;

  private constructor(
    readonly context: BrowserContext,
    readonly page: Page,
    private readonly label: string,
  ) {}

  static async open(label: string): Promise<Visitor> {
    const context = await browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: APP });
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    page.on('dialog', (dialog) => void dialog.accept());
    return new Visitor(context, page, label);
  }

  async sees(heading: string | RegExp): Promise<void> {
    await this.page.getByRole('heading', { level: 1, name: heading }).waitFor();
    this.shots += 1;
    this.violations.push(...(await inspectPage(this.page, `sso-${this.label}-${String(this.shots).padStart(2, '0')}`)));
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

  section(name: string) {
    return this.page.getByRole('region', { name });
  }

  /** The signed-in account, as this browser's session sees it. */
  me(): Promise<{ email: string; active_org: { id: string } | null }> {
    return this.page.evaluate("fetch('/v0/users/me').then((answer) => answer.json())");
  }

  async close(): Promise<void> {
    await this.context.close();
    expect(this.violations).toEqual([]);
  }
}

/** An account of an address the test picks, verified, with a password. */
async function accountWithEmail(email: string): Promise<void> {
  const client = new ApiClient(stack.gatewayUrl);
  expect((await client.post('/v0/users', { handle: `p_${tag()}`, email, password: PASSWORD })).status).toBe(201);
  expect((await client.post('/v0/auth/verify-email', { token: await mailedToken(stack, email, 'verify-email') })).status).toBe(200);
}

describe('an organisation’s single sign-on, set up and used in the browser', () => {
  it(
    'proves a domain by DNS, connects a SAML IdP from its metadata, signs colleagues in through it, enforces it, explains the refusal, and takes it down again',
    async () => {
      const owner = await signedInAccount(stack, 'ssoweb');
      const name = `Initech ${tag()}`;
      const created = await owner.client.post<{ id: string; slug: string }>('/v0/orgs', { name, slug: `initech-${tag()}` });
      expect(created.status).toBe(201);
      const org = created.body;
      const domain = `initech-${tag()}.test`;

      const admin = await Visitor.open('admin');
      await admin.signIn(owner.email);
      await admin.sees('Your account');
      await admin.goto(`/orgs/${org.id}`, name);
      const sso = admin.section('Single sign-on');
      await sso.getByText('No domains yet.').waitFor();
      expect(await sso.getByRole('switch', { name: 'Require single sign-on' }).isDisabled()).toBe(true);

      // A domain: pending, with the record to publish, which the copy button puts on the clipboard.
      await sso.getByLabel('Domain', { exact: true }).fill(domain.toUpperCase());
      await sso.getByRole('button', { name: 'Add domain' }).click();
      const item = sso.getByRole('list', { name: 'Domains' }).getByRole('listitem').filter({ hasText: domain });
      await item.getByText('Pending', { exact: true }).waitFor();
      const recordName = `_latchkey-challenge.${domain}`;
      await item.getByText(recordName, { exact: true }).waitFor();
      const recordValue = (await item.locator('dd code').nth(1).textContent()) ?? '';
      expect(recordValue).toMatch(/^latchkey-domain-verification=/);
      await item.getByRole('button', { name: `Copy the record value of ${domain}` }).click();
      await item.getByText('Copied.').waitFor();
      expect(await admin.page.evaluate('navigator.clipboard.readText()')).toBe(recordValue);
      await admin.sees(name);

      // Verified too early: what to do next; once the record is there, verified.
      await item.getByRole('button', { name: `Verify ${domain}` }).click();
      await item.getByRole('alert').getByText('The TXT record was not found (yet).', { exact: false }).waitFor();
      await admin.sees(name);
      dns.answer(recordName, { txt: [recordValue] });
      await item.getByRole('button', { name: `Verify ${domain}` }).click();
      await item.getByText('Verified', { exact: true }).waitFor();
      expect(await item.getByRole('button', { name: `Verify ${domain}` }).count()).toBe(0);

      // The connection, from the IdP's metadata file; then the values to paste into the IdP.
      await sso.getByLabel('Metadata file').setInputFiles({ name: 'idp-metadata.xml', mimeType: 'application/xml', buffer: Buffer.from(idpMetadataXml()) });
      const metadataField = sso.getByLabel('IdP metadata XML');
      await waitFor(async () => ((await metadataField.inputValue()).includes(idp.entityId) ? true : undefined), { description: 'the metadata file read into the form' });
      await sso.getByLabel('Default role').selectOption('member');
      await sso.getByRole('button', { name: 'Add connection' }).click();
      const connection = sso.getByRole('list', { name: 'Connections' }).getByRole('listitem').filter({ hasText: idp.entityId });
      await connection.getByText(/\/v0\/sso\/saml\/[0-9a-f-]{36}\/acs$/).waitFor();
      const acsUrl = (await connection.getByText(/\/acs$/).textContent()) ?? '';
      expect(acsUrl.startsWith(`${APP}/v0/sso/saml/`)).toBe(true);
      await connection.getByText(acsUrl.replace(/acs$/, 'metadata'), { exact: true }).first().waitFor();
      await admin.sees(name);

      // A colleague with no account yet signs in by their work email, and comes back where they were going.
      idpUser = `casey.${tag()}@${domain}`;
      const colleague = await Visitor.open('colleague');
      await colleague.goto('/sign-in?next=/orgs', 'Sign in');
      await colleague.page.getByLabel('Work email or organisation').fill(idpUser);
      await colleague.page.getByRole('button', { name: 'Sign in with SSO' }).click();
      await colleague.sees('Organisations');
      await colleague.page.getByRole('main').getByText(name).waitFor();
      expect(await colleague.me()).toMatchObject({ email: idpUser, active_org: { id: org.id } });
      await colleague.close();

      // Enforced: the password form sends an address of the domain to the IdP, and the password never leaves the browser.
      await sso.getByRole('switch', { name: 'Require single sign-on' }).check();
      await sso.getByText('Single sign-on is now required.').waitFor();
      await admin.sees(name);
      const passwordUser = `robin.${tag()}@${domain}`;
      await accountWithEmail(passwordUser);
      idpUser = passwordUser;
      const robin = await Visitor.open('enforced');
      const passwordPosts: string[] = [];
      robin.page.on('request', (request) => {
        if (request.url().endsWith('/v0/auth/login')) passwordPosts.push(request.url());
      });
      await robin.signIn(passwordUser);
      await robin.sees('Your account');
      expect(passwordPosts).toEqual([]);
      expect(await robin.me()).toMatchObject({ email: passwordUser, active_org: { id: org.id } });
      await robin.close();

      // An IdP asserting an address outside the verified domains lands on the error page, which explains it.
      idpUser = `mallory.${tag()}@elsewhere.test`;
      const stranger = await Visitor.open('mismatch');
      await stranger.goto('/sign-in', 'Sign in');
      await stranger.page.getByLabel('Work email or organisation').fill(org.slug);
      await stranger.page.getByRole('button', { name: 'Sign in with SSO' }).click();
      await stranger.sees('That address is not one of your organisation’s');
      expect(new URL(stranger.page.url()).searchParams.get('code')).toBe('sso:domain_mismatch');
      await stranger.page.getByRole('link', { name: 'Back to sign in' }).click();
      await stranger.sees('Sign in');
      await stranger.close();

      // Taken down again: the connection deleted, then the domain, which turns enforcement off.
      await connection.getByRole('button', { name: 'Delete connection' }).click();
      await sso.getByText('No identity provider is connected yet.').waitFor();
      await item.getByRole('button', { name: `Remove ${domain}` }).click();
      await sso.getByText('No domains yet.').waitFor();
      expect(await sso.getByRole('switch', { name: 'Require single sign-on' }).isChecked()).toBe(false);
      await admin.sees(name);
      await admin.close();
    },
  );

  it('says when no organisation or domain has single sign-on, on the sign-in page', async () => {
    const visitor = await Visitor.open('not-found');
    await visitor.goto('/sign-in', 'Sign in');
    await visitor.page.getByLabel('Work email or organisation').fill(`someone@nobody-${tag()}.test`);
    await visitor.page.getByRole('button', { name: 'Sign in with SSO' }).click();
    await visitor.page.getByRole('alert').waitFor();
    expect(visitor.page.url()).toBe(`${APP}/sign-in`);
    await visitor.sees('Sign in');
    await visitor.close();
  });
});

/** An organisation with a verified domain, made through the API, and its owner. */
async function organisationWithDomain() {
  const owner = await signedInAccount(stack, 'ssoapi');
  const created = await owner.client.post<{ id: string; slug: string }>('/v0/orgs', { name: 'Globex', slug: `globex-${tag()}` });
  expect(created.status).toBe(201);
  const domain = `globex-${tag()}.test`;
  const claimed = await owner.client.post<{ verification: { name: string; value: string } }>(`/v0/orgs/${created.body.id}/domains`, { domain });
  expect(claimed.status).toBe(201);
  dns.answer(claimed.body.verification.name, { txt: [claimed.body.verification.value] });
  expect((await owner.client.post(`/v0/orgs/${created.body.id}/domains/${domain}/verify`)).status).toBe(200);
  return { ...created.body, domain, owner };
}

/** An organisation with a verified domain and a SAML connection to the IdP, made through the API. */
async function organisationWithSso() {
  const org = await organisationWithDomain();
  expect((await org.owner.client.post(`/v0/orgs/${org.id}/sso/connections`, { type: 'saml', idp_metadata_xml: idpMetadataXml() })).status).toBe(201);
  return org;
}

describe('an OpenID Connect connection', () => {
  it('is added from the issuer, client ID and secret, shows the redirect URI to register, and its test sign-in goes through the provider', async () => {
    const org = await organisationWithDomain();
    const admin = await Visitor.open('oidc-admin');
    await admin.signIn(org.owner.email);
    await admin.sees('Your account');
    await admin.goto(`/orgs/${org.id}`, 'Globex');
    const sso = admin.section('Single sign-on');
    await sso.getByRole('radio', { name: 'OpenID Connect' }).check();
    await sso.getByLabel('Issuer').fill(oidc.url);
    await sso.getByLabel('Client ID').fill('globex');
    await sso.getByLabel('Client secret').fill(`secret-${tag()}`);
    await sso.getByLabel('Email attribute').fill('email');
    await sso.getByRole('button', { name: 'Add connection' }).click();
    const connection = sso.getByRole('list', { name: 'Connections' }).getByRole('listitem').filter({ hasText: oidc.url });
    await connection.getByText(new RegExp(`^${APP}/v0/sso/oidc/[0-9a-f-]{36}/callback$`)).waitFor();
    await admin.sees('Globex');

    const email = `kim.${tag()}@${org.domain}`;
    await oidc.nextLogin({ idToken: { sub: `kim-${tag()}`, email, email_verified: true, name: 'Kim' } });
    // The page the sign-in starts from is the one it comes back to: wait for the way back through the gateway.
    const returned = admin.page.waitForResponse((response) => /\/v0\/sso\/oidc\/[0-9a-f-]{36}\/callback/.test(response.url()));
    await connection.getByRole('button', { name: 'Test sign-in' }).click();
    expect((await returned).status()).toBe(303);
    await admin.sees('Globex');
    expect(await admin.me()).toMatchObject({ email, active_org: { id: org.id } });
    await admin.close();
  });
});

describe('a Google sign-in of an address whose organisation enforces SSO', () => {
  it('is refused on the callback page, which offers the organisation’s SSO, and that signs the person in', async () => {
    const org = await organisationWithSso();
    expect((await org.owner.client.patch(`/v0/orgs/${org.id}`, { sso_enforced: true })).status).toBe(200);
    const email = `gale.${tag()}@${org.domain}`;
    await oidc.nextLogin({ idToken: { sub: `g-${tag()}`, email, email_verified: true, name: 'Gale' } });
    idpUser = email;
    const visitor = await Visitor.open('google-refused');
    await visitor.goto('/sign-in', 'Sign in');
    await visitor.page.getByRole('button', { name: 'Sign in with Google' }).click();
    await visitor.page.getByRole('alert').getByText('Your organisation requires single sign-on.').waitFor();
    await visitor.sees('Signing in');
    await visitor.page.getByRole('button', { name: `Sign in with SSO (${org.slug})` }).click();
    await visitor.sees('Your account');
    expect(await visitor.me()).toMatchObject({ email, active_org: { id: org.id } });
    await visitor.close();
  });
});

describe('an SSO sign-in of an account with TOTP on', () => {
  it('asks for the code on the sign-in page’s second step, keeps the challenge out of the address bar, then goes where the sign-in was going', async () => {
    const org = await organisationWithSso();
    const email = `tess.${tag()}@${org.domain}`;
    await accountWithEmail(email);
    const account = new ApiClient(stack.gatewayUrl);
    expect((await account.post('/v0/auth/login', { email, password: PASSWORD })).status).toBe(200);
    const setup = totpSetupSchema.parse((await account.post('/v0/auth/totp/setup')).body);
    expect((await account.post('/v0/auth/totp/enable', { setup_token: setup.setup_token, code: totpCode(setup.secret, -1) })).status).toBe(200);

    idpUser = email;
    const visitor = await Visitor.open('second-factor');
    await visitor.goto('/sign-in?next=/orgs', 'Sign in');
    await visitor.page.getByLabel('Work email or organisation').fill(org.slug);
    await visitor.page.getByRole('button', { name: 'Sign in with SSO' }).click();
    await visitor.sees('Two-factor authentication');
    expect(new URL(visitor.page.url()).hash).toBe('');
    expect(await visitor.page.evaluate('JSON.stringify(sessionStorage)')).not.toContain('temp_token');
    await visitor.page.getByLabel('Authentication code').fill(totpCode(setup.secret));
    await visitor.page.getByRole('button', { name: 'Verify' }).click();
    await visitor.sees('Organisations');
    expect(await visitor.me()).toMatchObject({ email });
    await visitor.close();
  });
});

describe('signing in to another application through an organisation’s IdP (docs/oidc.md)', () => {
  it('goes from the application’s sign-in page to the IdP and back to its consent, then to the application', async () => {
    const org = await organisationWithSso();
    const config = await relyingParty(stack.gatewayUrl, 'sso-app');
    const request = await authorizationRequest(config, { redirect_uri: callbacks.url });
    idpUser = `drew.${tag()}@${org.domain}`;
    const visitor = await Visitor.open('application');
    await visitor.page.goto(request.url.toString());
    await visitor.page.getByText('Sign in to continue to SSO App').waitFor();
    await visitor.sees('Sign in');
    await visitor.page.getByLabel('Work email or organisation').fill(idpUser);
    await visitor.page.getByRole('button', { name: 'Sign in with SSO' }).click();

    await visitor.sees('Sign in to SSO App');
    await visitor.page.getByRole('button', { name: 'Allow' }).click();
    const landed = await callbacks.next();
    const tokens = await request.exchange(landed);
    expect(tokens.claims()).toMatchObject({ aud: 'sso-app', email: idpUser });
    await visitor.page.waitForURL((url) => url.href === landed.href);
    await visitor.close();
  });
});

describe('the SSO error page', () => {
  it('explains each code in words, and shows anything else, markup included, only as the generic text', async () => {
    const visitor = await Visitor.open('errors');
    await visitor.goto('/sso/error?code=sso:response_invalid', 'The identity provider’s answer was refused');
    await visitor.goto('/sso/error?code=sso:connection_not_found', 'No single sign-on for this organisation');
    const injected = '<img src=x onerror="document.title=\'owned\'">';
    await visitor.goto(`/sso/error?code=${encodeURIComponent(injected)}`, 'Single sign-on did not work');
    expect(await visitor.page.locator('img').count()).toBe(0);
    expect(await visitor.page.getByRole('main').textContent()).not.toContain('onerror');
    await visitor.page.getByRole('link', { name: 'Back to sign in' }).waitFor();
    await visitor.close();
  });
});

describe('home-realm discovery on the password form (docs/web-app.md, "Sign-in")', () => {
  it('offers a domain’s SSO when it is not enforced, signs in through it, and still takes the password when asked again', async () => {
    const org = await organisationWithSso();
    idpUser = `noor.${tag()}@${org.domain}`;
    const visitor = await Visitor.open('offered');
    await visitor.goto('/sign-in?next=/orgs', 'Sign in');
    await visitor.page.getByLabel('Email', { exact: true }).fill(idpUser);
    await visitor.page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await visitor.page.getByRole('status').getByText('Your organisation signs you in through its identity provider.').waitFor();
    await visitor.sees('Sign in');
    await visitor.page.getByRole('button', { name: 'Continue with single sign-on' }).click();
    await visitor.sees('Organisations');
    expect(await visitor.me()).toMatchObject({ email: idpUser, active_org: { id: org.id } });
    await visitor.close();

    // An account of the same domain with a password: offered SSO, it signs in with the password on the second submit.
    const withPassword = `pia.${tag()}@${org.domain}`;
    await accountWithEmail(withPassword);
    const second = await Visitor.open('offered-password');
    await second.signIn(withPassword);
    await second.page.getByRole('button', { name: 'Continue with single sign-on' }).waitFor();
    await second.page.getByRole('button', { name: 'Sign in with password' }).click();
    await second.sees('Your account');
    expect(await second.me()).toMatchObject({ email: withPassword });
    await second.close();
  });

  it('asks an address outside any SSO domain for its password as before', async () => {
    const account = await signedInAccount(stack, 'plain');
    const visitor = await Visitor.open('plain');
    await visitor.signIn(account.email);
    await visitor.sees('Your account');
    await visitor.close();
  });

  it('sends an application’s sign-in of an enforcing organisation’s address to the IdP and back to the consent', async () => {
    const org = await organisationWithSso();
    expect((await org.owner.client.patch(`/v0/orgs/${org.id}`, { sso_enforced: true })).status).toBe(200);
    const config = await relyingParty(stack.gatewayUrl, 'sso-app');
    const request = await authorizationRequest(config, { redirect_uri: callbacks.url });
    idpUser = `lee.${tag()}@${org.domain}`;
    const visitor = await Visitor.open('application-email-first');
    await visitor.page.goto(request.url.toString());
    await visitor.page.getByText('Sign in to continue to SSO App').waitFor();
    await visitor.sees('Sign in');
    await visitor.page.getByLabel('Email', { exact: true }).fill(idpUser);
    await visitor.page.getByRole('button', { name: 'Sign in', exact: true }).click();

    await visitor.sees('Sign in to SSO App');
    await visitor.page.getByRole('button', { name: 'Allow' }).click();
    const landed = await callbacks.next();
    const tokens = await request.exchange(landed);
    expect(tokens.claims()).toMatchObject({ aud: 'sso-app', email: idpUser });
    await visitor.close();
  });
});

describe('an IdP that answers in another tab (docs/sso.md, "Signing in")', () => {
  it('still lands where the sign-in was going: the way back is kept with the request, not in the tab', async () => {
    const org = await organisationWithSso();
    idpUser = `tab.${tag()}@${org.domain}`;
    const visitor = await Visitor.open('other-tab');
    await visitor.goto('/sign-in?next=/orgs', 'Sign in');
    // The start as the sign-in page makes it; the IdP's page then opens in a new tab, which shares no sessionStorage.
    const authorizationUrl = await visitor.page.evaluate<string, string>(
      (email) =>
        fetch('/v0/auth/sso/start', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, return_to: '/orgs' }) })
          .then((answer) => answer.json() as Promise<{ authorization_url: string }>)
          .then((body) => body.authorization_url),
      idpUser,
    );
    const tab = await visitor.context.newPage();
    await tab.goto(authorizationUrl);
    await tab.getByRole('heading', { level: 1, name: 'Organisations' }).waitFor();
    expect(new URL(tab.url()).pathname).toBe('/orgs');
    expect(await visitor.me()).toMatchObject({ email: idpUser, active_org: { id: org.id } });
    await visitor.close();
  });
});
