import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startDnsServer, type DnsServer } from '@latchkey/test-kit';
import { signedInAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { SamlIdentityProvider, authnRequestOf, type ServiceProviderView } from '../../services/oauth/test/saml-identity-provider';

/**
 * The SAML ACS in a real browser (docs/sso.md, "The browser binding"): the
 * IdP, on another site, answers with an auto-submitting form that posts
 * cross-site to the gateway; Chromium sends the `__Host-sso_binding`
 * cookie (`SameSite=None; Secure`) with that POST, and only the browser
 * that started the sign-in gets in. `*.localhost` is a secure context, so
 * Chromium keeps Secure cookies over HTTP there, as COOKIE_SECURE=true
 * sets them in production.
 */
const APP_HOST = 'app.localhost';
const APP = `http://${APP_HOST}`;
const IDP_HOST = 'idp.example';
const MINUTE = 60_000;

jest.setTimeout(60_000);

let stack: E2eStack;
let dns: DnsServer;
let browser: Browser;
let idpServer: Server;
const idp = new SamlIdentityProvider(`http://${IDP_HOST}/metadata`);
/** Who the IdP signs in next, and the SP it answers. */
let nextPerson = '';
let sp: ServiceProviderView;
let organizationId = '';

/**
 * The IdP's sign-in endpoint: reads the AuthnRequest of the redirect and
 * answers the HTML page IdPs answer, a form posting SAMLResponse to the ACS
 * by itself.
 */
function startIdp(): Promise<number> {
  idpServer = createServer((request, response) => {
    void (async () => {
      const { id } = authnRequestOf(`http://${IDP_HOST}${request.url ?? '/'}`);
      const now = Date.now();
      const samlResponse = await idp.signedResponse(sp, {
        issuer: idp.entityId,
        nameId: nextPerson,
        inResponseTo: id,
        audience: sp.entityId,
        recipient: sp.acsUrl,
        destination: sp.acsUrl,
        notBefore: new Date(now - MINUTE),
        notOnOrAfter: new Date(now + 5 * MINUTE),
        attributes: { email: [nextPerson] },
      });
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(
        `<!doctype html><html><body><form method="post" action="${sp.acsUrl}"><input type="hidden" name="SAMLResponse" value="${samlResponse}"><input type="hidden" name="RelayState" value=""></form><script>document.forms[0].submit()</script></body></html>`,
      );
    })();
  });
  return new Promise((resolve) => idpServer.listen(0, '127.0.0.1', () => resolve((idpServer.address() as AddressInfo).port)));
}

beforeAll(async () => {
  dns = await startDnsServer();
  const idpPort = await startIdp();
  stack = await startE2eStack('sso-browser', {
    PUBLIC_APP_URL: APP,
    COOKIE_SECURE: 'true',
    SSO_PUBLIC_URL: APP,
    SSO_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    DNS_SERVERS: dns.address,
  });
  const gatewayPort = Number(new URL(stack.gatewayUrl).port);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [`--host-resolver-rules=MAP ${APP_HOST}:80 127.0.0.1:${gatewayPort}, MAP ${IDP_HOST}:80 127.0.0.1:${idpPort}`, '--no-sandbox'],
  });

  // The organisation, its domain and its SAML connection, set up through the API by its owner.
  const owner = await signedInAccount(stack, 'ssobrowser', { origin: APP });
  const org = await owner.client.post<{ id: string }>('/v0/orgs', { name: 'Acme', slug: `acme-${randomBytes(4).toString('hex')}` });
  organizationId = org.body.id;
  const domain = `acme-${randomBytes(4).toString('hex')}.test`;
  const claimed = await owner.client.post<{ verification: { name: string; value: string } }>(`/v0/orgs/${organizationId}/domains`, { domain });
  dns.answer(claimed.body.verification.name, { txt: [claimed.body.verification.value] });
  await owner.client.post(`/v0/orgs/${organizationId}/domains/${domain}/verify`);
  const connection = await owner.client.post<{ sp: { entity_id: string; acs_url: string } }>(`/v0/orgs/${organizationId}/sso/connections`, {
    type: 'saml',
    idp_entity_id: idp.entityId,
    idp_sso_url: `http://${IDP_HOST}/sso`,
    idp_certificates: [idp.keys.certificate],
  });
  expect(connection.status).toBe(201);
  sp = { entityId: connection.body.sp.entity_id, acsUrl: connection.body.sp.acs_url };
  nextPerson = `pat.${randomBytes(4).toString('hex')}@${domain}`;
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await stack?.destroy();
  await new Promise((resolve) => idpServer?.close(resolve));
  await dns?.close();
});

/** Starts a sign-in in a page of the app, as the web app does, and answers the IdP URL. */
async function startInApp(page: Page): Promise<string> {
  await page.goto(`${APP}/v0/openapi.json`);
  return page.evaluate(async (email) => {
    const response = await fetch('/v0/auth/sso/start', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
    return ((await response.json()) as { authorization_url: string }).authorization_url;
  }, nextPerson);
}

it('carries the binding cookie on the IdP’s cross-site POST: signed in, the organisation active', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const authorizationUrl = await startInApp(page);
  expect(new URL(authorizationUrl).host).toBe(IDP_HOST);
  const binding = (await context.cookies(APP)).find((cookie) => cookie.name === '__Host-sso_binding');
  expect(binding).toMatchObject({ sameSite: 'None', secure: true, httpOnly: true, path: '/' });

  await page.goto(authorizationUrl);
  await page.waitForURL(`${APP}/`);
  const me = await page.evaluate(async () => (await fetch('/v0/users/me')).json() as Promise<Record<string, unknown>>);
  expect(me).toMatchObject({ email: nextPerson, active_org: { id: organizationId } });
  await context.close();
});

it('turns away the same IdP answer in a browser that did not start the sign-in', async () => {
  const starter = await browser.newContext();
  const authorizationUrl = await startInApp(await starter.newPage());
  const other = await browser.newContext();
  const page = await other.newPage();
  await page.goto(authorizationUrl);
  await page.waitForURL(/\/sso\/error\?code=sso%3Aresponse_invalid$/);
  const me = await page.evaluate(async () => (await fetch('/v0/users/me')).status);
  expect(me).toBe(401);
  await Promise.all([starter.close(), other.close()]);
});
