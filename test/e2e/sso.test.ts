import { randomBytes, randomUUID } from 'node:crypto';
import { connect } from 'nats';
import pg from 'pg';
import { topology } from '@latchkey/job-streams';
import { startDnsServer, waitFor, type DnsServer } from '@latchkey/test-kit';
import { ApiClient } from '../support/api-client';
import { mailedToken, PASSWORD, signedInAccount } from '../support/accounts';
import { totpCode } from '../support/authenticator';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { followAuthorization, startOidcProvider, type OidcClaims, type ProviderFixture } from '../../services/oauth/test/provider-fixtures';
import { SamlIdentityProvider, authnRequestOf, type ResponseSpec, type ServiceProviderView } from '../../services/oauth/test/saml-identity-provider';
import { totpSetupSchema } from '../../gateway/src/totp/totp-schemas';

/**
 * Enterprise SSO over HTTP (docs/api.md, "Enterprise SSO"; docs/sso.md):
 * an organisation's owner proves a domain and adds connections; a person
 * of that domain signs in through the IdP (samlify, or oauth2-mock-server
 * for OpenID Connect) and lands in the web app signed in, with the
 * organisation active, or at its error page.
 */
const APP_URL = 'http://app.example.test';
/** The origin the oauth unit makes the SP's URLs of (SSO_PUBLIC_URL); the test posts to the gateway's real address. */
const SSO_PUBLIC_URL = 'http://sso.localhost';
const IDP_ORIGIN = 'https://idp.acme.test';
const MINUTE = 60_000;

let stack: E2eStack;
let dns: DnsServer;
let oidc: ProviderFixture<{ idToken: OidcClaims; userinfo?: OidcClaims }>;
const idp = new SamlIdentityProvider(`${IDP_ORIGIN}/metadata`);

let owner: Awaited<ReturnType<typeof signedInAccount>>;
let org: { id: string; slug: string };
let domain: string;
let saml: { id: string; sp: { entity_id: string; acs_url: string; metadata_url: string } };

const tag = () => randomBytes(4).toString('hex');

beforeAll(async () => {
  [dns, oidc] = await Promise.all([startDnsServer(), startOidcProvider()]);
  stack = await startE2eStack('sso', {
    PUBLIC_APP_URL: APP_URL,
    SSO_PUBLIC_URL,
    SSO_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    SSO_ALLOW_PRIVATE_ISSUERS: 'true',
    DNS_SERVERS: dns.address,
  });
  owner = await signedInAccount(stack, 'ssoowner');
  const created = await owner.client.post<{ id: string; slug: string }>('/v0/orgs', { name: 'Acme', slug: `acme-${tag()}` });
  expect(created.status).toBe(201);
  org = created.body;
  domain = `acme-${tag()}.test`;
  const claimed = await owner.client.post<{ verification: { name: string; value: string } }>(`/v0/orgs/${org.id}/domains`, { domain });
  expect(claimed.status).toBe(201);
  dns.answer(claimed.body.verification.name, { txt: [claimed.body.verification.value] });
  expect((await owner.client.post(`/v0/orgs/${org.id}/domains/${domain}/verify`)).status).toBe(200);
  const connection = await owner.client.post<typeof saml>(`/v0/orgs/${org.id}/sso/connections`, {
    type: 'saml',
    idp_entity_id: idp.entityId,
    idp_sso_url: `${IDP_ORIGIN}/sso`,
    idp_certificates: [idp.keys.certificate],
    default_role: 'member',
  });
  expect(connection.status).toBe(201);
  saml = connection.body;
}, 90_000);

afterAll(async () => {
  await stack?.destroy();
  await Promise.all([dns?.close(), oidc?.stop()]);
});

function view(): ServiceProviderView {
  return { entityId: saml.sp.entity_id, acsUrl: saml.sp.acs_url };
}

function validSpec(email: string, requestId: string): ResponseSpec {
  const now = Date.now();
  return {
    issuer: idp.entityId,
    nameId: email,
    inResponseTo: requestId,
    audience: view().entityId,
    recipient: view().acsUrl,
    destination: view().acsUrl,
    notBefore: new Date(now - MINUTE),
    notOnOrAfter: new Date(now + 5 * MINUTE),
    attributes: { email: [email], name: ['Pat Person'] },
  };
}

/** The IdP's auto-submitting form, as the browser posts it: cross-site, urlencoded. */
function postForm(browser: ApiClient, fields: Record<string, string>) {
  return browser.request('POST', `/v0/sso/saml/${saml.id}/acs`, {
    body: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: IDP_ORIGIN },
    redirect: 'manual',
  });
}

/**
 * The whole browser journey of a SAML sign-in over plain HTTP: the start,
 * the IdP's post, and the same-site re-post of the gateway's page.
 */
async function samlSignIn(browser: ApiClient, email: string, respond: (requestId: string) => Promise<string> = (id) => idp.signedResponse(view(), validSpec(email, id))) {
  const start = await browser.post<{ authorization_url: string }>('/v0/auth/sso/start', { email });
  expect(start.status).toBe(200);
  const { id } = authnRequestOf(start.body.authorization_url);
  const samlResponse = await respond(id);
  const first = await postForm(browser, { SAMLResponse: samlResponse, RelayState: '' });
  // COOKIE_SECURE=false: the Lax binding cookie did not come with the cross-site post; the page posts again.
  expect(first.status).toBe(200);
  expect(first.headers.get('content-type')).toMatch(/text\/html/);
  expect(first.text).toContain('name="latchkey_repost" value="1"');
  return browser.request('POST', `/v0/sso/saml/${saml.id}/acs`, {
    body: new URLSearchParams({ SAMLResponse: samlResponse, RelayState: '', latchkey_repost: '1' }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    redirect: 'manual',
  });
}

describe('connections', () => {
  it('are an organisation’s own, and the SP metadata is public XML', async () => {
    const listed = await owner.client.get<{ items: { id: string }[] }>(`/v0/orgs/${org.id}/sso/connections`);
    expect(listed.body.items.map((item) => item.id)).toEqual([saml.id]);
    expect(saml.sp).toEqual({
      entity_id: `${SSO_PUBLIC_URL}/v0/sso/saml/${saml.id}/metadata`,
      acs_url: `${SSO_PUBLIC_URL}/v0/sso/saml/${saml.id}/acs`,
      metadata_url: `${SSO_PUBLIC_URL}/v0/sso/saml/${saml.id}/metadata`,
    });
    const metadata = await new ApiClient(stack.gatewayUrl).get(`/v0/sso/saml/${saml.id}/metadata`);
    expect(metadata.status).toBe(200);
    expect(metadata.headers.get('content-type')).toMatch(/^application\/samlmetadata\+xml/);
    expect(metadata.text).toContain(`Location="${saml.sp.acs_url}"`);

    const other = await signedInAccount(stack, 'otherowner');
    const otherOrg = await other.client.post<{ id: string }>('/v0/orgs', { name: 'Other', slug: `other-${tag()}` });
    const foreign = await other.client.get(`/v0/orgs/${otherOrg.body.id}/sso/connections/${saml.id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ code: 'sso:connection_not_found' });
    expect((await other.client.get(`/v0/orgs/${org.id}/sso/connections`)).body).toMatchObject({ status: 404, code: 'org:not_found' });
  });

  it('answers 404 sso:connection_not_found for an email of no SSO domain', async () => {
    const start = await new ApiClient(stack.gatewayUrl).post('/v0/auth/sso/start', { email: `someone@nowhere-${tag()}.test` });
    expect(start.status).toBe(404);
    expect(start.body).toMatchObject({ code: 'sso:connection_not_found' });
  });
});

describe('home-realm discovery', () => {
  it('answers about the domain alone: the same for an address with an account and one without', async () => {
    const anonymous = new ApiClient(stack.gatewayUrl);
    const withAccount = `known.${tag()}@${domain}`;
    expect((await anonymous.post('/v0/users', { handle: `known_${tag()}`, email: withAccount, password: PASSWORD })).status).toBe(201);
    const known = await anonymous.post('/v0/auth/sso/discover', { email: withAccount });
    const unknown = await anonymous.post('/v0/auth/sso/discover', { email: `nobody.${tag()}@${domain.toUpperCase()}` });
    expect(known).toMatchObject({ status: 200, body: { sso: true, enforced: false } });
    expect(unknown.body).toEqual(known.body);
    expect((await anonymous.post('/v0/auth/sso/discover', { email: `someone@nowhere-${tag()}.test` })).body).toEqual({ sso: false, enforced: false });
    expect((await anonymous.post('/v0/auth/sso/discover', { email: 'not an address' })).status).toBe(400);
    expect((await anonymous.post('/v0/auth/sso/discover', { org_slug: org.slug })).status).toBe(400);
  });

  it('finds nothing for a verified domain whose organisation has no connection', async () => {
    const other = await signedInAccount(stack, 'noconn');
    const created = await other.client.post<{ id: string }>('/v0/orgs', { name: 'Hooli', slug: `hooli-${tag()}` });
    const bare = `hooli-${tag()}.test`;
    const claimed = await other.client.post<{ verification: { name: string; value: string } }>(`/v0/orgs/${created.body.id}/domains`, { domain: bare });
    dns.answer(claimed.body.verification.name, { txt: [claimed.body.verification.value] });
    expect((await other.client.post(`/v0/orgs/${created.body.id}/domains/${bare}/verify`)).status).toBe(200);
    expect((await new ApiClient(stack.gatewayUrl).post('/v0/auth/sso/discover', { email: `a@${bare}` })).body).toEqual({ sso: false, enforced: false });
  });
});

describe('signing in with SAML', () => {
  it('creates the account just in time and signs it in with fed and the organisation active', async () => {
    const browser = new ApiClient(stack.gatewayUrl);
    const email = `pat.${tag()}@${domain}`;
    const done = await samlSignIn(browser, email);
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`${APP_URL}/`);
    expect(browser.sessionCookie).toBeDefined();
    const me = await browser.get('/v0/users/me');
    expect(me.body).toMatchObject({ email, email_verified: true, active_org: { id: org.id, role: 'member' } });
    // What the session proves, as a service token carries it to other services.
    const token = await browser.post<{ token: string }>('/v0/auth/token');
    expect(token.status).toBe(200);
    const claims = JSON.parse(Buffer.from(token.body.token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
    expect(claims).toMatchObject({ amr: ['fed'], org_id: org.id, org_role: 'member' });
    // The organisation's audit log: the join, by Latchkey on the IdP's word, and the member's sign-in.
    const log = await owner.client.get<{ items: { action: string; actor: { type: string; id: string }; data: Record<string, unknown> }[] }>(`/v0/orgs/${org.id}/audit-log`);
    const userId = (me.body as { id: string }).id;
    expect(log.body.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ action: 'org.member.added', actor: { type: 'system', id: '' }, data: expect.objectContaining({ source: 'sso' }) }),
        expect.objectContaining({ action: 'auth.sign_in', actor: { type: 'user', id: userId }, data: expect.objectContaining({ method: 'sso' }) }),
      ]),
    );
  });

  it('refuses a response answering another browser’s request: the error page, no session', async () => {
    const starter = new ApiClient(stack.gatewayUrl);
    const email = `mallory.${tag()}@${domain}`;
    const start = await starter.post<{ authorization_url: string }>('/v0/auth/sso/start', { email });
    const samlResponse = await idp.signedResponse(view(), validSpec(email, authnRequestOf(start.body.authorization_url).id));
    const victim = new ApiClient(stack.gatewayUrl);
    const refused = await victim.request('POST', `/v0/sso/saml/${saml.id}/acs`, {
      body: new URLSearchParams({ SAMLResponse: samlResponse, latchkey_repost: '1' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      redirect: 'manual',
    });
    expect(refused.status).toBe(303);
    expect(refused.headers.get('location')).toBe(`${APP_URL}/sso/error?code=sso%3Aresponse_invalid`);
    expect(victim.sessionCookie).toBeUndefined();
  });

  it('still asks an account with TOTP on for its second factor', async () => {
    const email = `totp.${tag()}@${domain}`;
    const account = new ApiClient(stack.gatewayUrl);
    expect((await account.post('/v0/users', { handle: `totp_${tag()}`, email, password: PASSWORD })).status).toBe(201);
    await account.post('/v0/auth/verify-email', { token: await mailedToken(stack, email, 'verify-email') });
    await account.post('/v0/auth/login', { email, password: PASSWORD });
    const setup = totpSetupSchema.parse((await account.post('/v0/auth/totp/setup')).body);
    expect((await account.post('/v0/auth/totp/enable', { setup_token: setup.setup_token, code: totpCode(setup.secret, -1) })).status).toBe(200);

    const browser = new ApiClient(stack.gatewayUrl);
    const challenged = await samlSignIn(browser, email);
    expect(challenged.status).toBe(303);
    const location = new URL(challenged.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(`${APP_URL}/sso/second-factor`);
    expect(browser.sessionCookie).toBeUndefined();
    const tempToken = new URLSearchParams(location.hash.slice(1)).get('temp_token');
    const verified = await browser.post('/v0/auth/totp/verify', { temp_token: tempToken, code: totpCode(setup.secret) });
    expect(verified.status).toBe(200);
    expect(browser.sessionCookie).toBeDefined();
    // The session acts for the connection's organisation, as one without the second step does.
    expect((await browser.get('/v0/users/me')).body).toMatchObject({ email, active_org: { id: org.id } });
    const token = (await browser.post<{ token: string }>('/v0/auth/token')).body.token;
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
    expect(claims).toMatchObject({ amr: ['fed', 'otp', 'mfa'], org_id: org.id });
  });
});

describe('where a sign-in returns', () => {
  it('lands where its start said, kept with the request rather than carried by the IdP', async () => {
    const browser = new ApiClient(stack.gatewayUrl);
    const email = `ret.${tag()}@${domain}`;
    const start = await browser.post<{ authorization_url: string }>('/v0/auth/sso/start', { email, return_to: '/oidc/interaction/abc_123?x=1' });
    expect(start.status).toBe(200);
    const samlResponse = await idp.signedResponse(view(), validSpec(email, authnRequestOf(start.body.authorization_url).id));
    // An IdP's RelayState naming another site is not followed.
    const done = await browser.request('POST', `/v0/sso/saml/${saml.id}/acs`, {
      body: new URLSearchParams({ SAMLResponse: samlResponse, RelayState: 'https://evil.test/', latchkey_repost: '1' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      redirect: 'manual',
    });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`${APP_URL}/oidc/interaction/abc_123?x=1`);
  });

  it('refuses a return path that could leave the web app (an open redirect)', async () => {
    const browser = new ApiClient(stack.gatewayUrl);
    for (const returnTo of ['https://evil.test/', '//evil.test/', '/\\evil.test/', '/\\/evil.test', 'evil.test', '/ok\nLocation: https://evil.test', `/${'a'.repeat(600)}`]) {
      const start = await browser.post('/v0/auth/sso/start', { email: `x@${domain}`, return_to: returnTo });
      expect({ returnTo, status: start.status, code: start.body.code }).toEqual({ returnTo, status: 400, code: 'validation:invalid_input' });
    }
  });
});

describe('signing in with OpenID Connect', () => {
  it('goes through the organisation’s provider and back to the app, signed in', async () => {
    const other = await signedInAccount(stack, 'oidcowner');
    const created = await other.client.post<{ id: string; slug: string }>('/v0/orgs', { name: 'Globex', slug: `globex-${tag()}` });
    const globex = created.body;
    const globexDomain = `globex-${tag()}.test`;
    const claimed = await other.client.post<{ verification: { name: string; value: string } }>(`/v0/orgs/${globex.id}/domains`, { domain: globexDomain });
    dns.answer(claimed.body.verification.name, { txt: [claimed.body.verification.value] });
    await other.client.post(`/v0/orgs/${globex.id}/domains/${globexDomain}/verify`);
    const connection = await other.client.post<{ id: string; redirect_uri: string }>(`/v0/orgs/${globex.id}/sso/connections`, {
      type: 'oidc',
      issuer: oidc.url,
      client_id: 'globex',
      client_secret: `secret-${tag()}`,
    });
    expect(connection.status).toBe(201);
    expect(connection.body.redirect_uri).toBe(`${SSO_PUBLIC_URL}/v0/sso/oidc/${connection.body.id}/callback`);

    const email = `kim.${tag()}@${globexDomain}`;
    await oidc.nextLogin({ idToken: { sub: `kim-${tag()}`, email, email_verified: true, name: 'Kim' } });
    const browser = new ApiClient(stack.gatewayUrl);
    const start = await browser.post<{ authorization_url: string }>('/v0/auth/sso/start', { org_slug: globex.slug });
    expect(start.status).toBe(200);
    const { code, state } = await followAuthorization(start.body.authorization_url);
    const callback = await browser.request('GET', `/v0/sso/oidc/${connection.body.id}/callback?${new URLSearchParams({ code, state }).toString()}`, { redirect: 'manual' });
    expect(callback.status).toBe(303);
    expect(callback.headers.get('location')).toBe(`${APP_URL}/`);
    expect((await browser.get('/v0/users/me')).body).toMatchObject({ email, active_org: { id: globex.id } });
  });
});

describe('deleting an organisation', () => {
  /** A fresh organisation with a verified domain and a SAML connection, so that deleting it leaves the others alone. */
  async function organizationWithConnection() {
    const admin = await signedInAccount(stack, 'leaving');
    const created = await admin.client.post<{ id: string; slug: string }>('/v0/orgs', { name: 'Initech', slug: `initech-${tag()}` });
    const leavingDomain = `initech-${tag()}.test`;
    const claimed = await admin.client.post<{ verification: { name: string; value: string } }>(`/v0/orgs/${created.body.id}/domains`, { domain: leavingDomain });
    dns.answer(claimed.body.verification.name, { txt: [claimed.body.verification.value] });
    expect((await admin.client.post(`/v0/orgs/${created.body.id}/domains/${leavingDomain}/verify`)).status).toBe(200);
    const connection = await admin.client.post<typeof saml>(`/v0/orgs/${created.body.id}/sso/connections`, {
      type: 'saml',
      idp_entity_id: idp.entityId,
      idp_sso_url: `${IDP_ORIGIN}/sso`,
      idp_certificates: [idp.keys.certificate],
    });
    expect(connection.status).toBe(201);
    return { admin, organization: created.body, domain: leavingDomain, connection: connection.body };
  }

  async function rowsOf(organizationId: string): Promise<{ connections: number; subjects: number }> {
    const db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
    try {
      const { rows } = await db.query<{ connections: number; subjects: number }>(
        `SELECT (SELECT count(*)::int FROM oauth.sso_connections WHERE organization_id = $1) AS connections,
                (SELECT count(*)::int FROM oauth.sso_subjects s JOIN oauth.sso_connections c ON c.id = s.connection_id WHERE c.organization_id = $1) AS subjects`,
        [organizationId],
      );
      return rows[0]!;
    } finally {
      await db.end();
    }
  }

  const refusals = async (): Promise<number> => {
    const text = await (await fetch(`${stack.operationsUrl('jobs')}/metrics`)).text();
    return Number(/jobs_processed_total\{[^}]*job_type="sso_cleanup"[^}]*outcome="refused"[^}]*\} (\d+)/.exec(text)?.[1] ?? 0);
  };

  it('removes its connections and their linked subjects', async () => {
    const leaving = await organizationWithConnection();
    const browser = new ApiClient(stack.gatewayUrl);
    const email = `sam.${tag()}@${leaving.domain}`;
    const start = await browser.post<{ authorization_url: string }>('/v0/auth/sso/start', { email });
    expect(start.status).toBe(200);
    const spView = { entityId: leaving.connection.sp.entity_id, acsUrl: leaving.connection.sp.acs_url };
    const spec = { ...validSpec(email, authnRequestOf(start.body.authorization_url).id), audience: spView.entityId, recipient: spView.acsUrl, destination: spView.acsUrl };
    const signedIn = await browser.request('POST', `/v0/sso/saml/${leaving.connection.id}/acs`, {
      body: new URLSearchParams({ SAMLResponse: await idp.signedResponse(spView, spec), latchkey_repost: '1' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      redirect: 'manual',
    });
    expect(signedIn.headers.get('location')).toBe(`${APP_URL}/`);
    expect(await rowsOf(leaving.organization.id)).toEqual({ connections: 1, subjects: 1 });
    // The organisation that stays keeps its connection.
    const staying = await rowsOf(org.id);
    expect(staying.connections).toBe(1);

    expect((await leaving.admin.client.delete(`/v0/orgs/${leaving.organization.id}`)).status).toBe(204);
    await waitFor(async () => ((await rowsOf(leaving.organization.id)).connections === 0 ? true : undefined), {
      timeoutMs: 30_000,
      description: 'the deleted organisation’s SSO connections to be removed',
    });
    expect(await rowsOf(leaving.organization.id)).toEqual({ connections: 0, subjects: 0 });
    expect(await rowsOf(org.id)).toEqual(staying);
    expect((await new ApiClient(stack.gatewayUrl).get(`/v0/sso/saml/${leaving.connection.id}/metadata`)).status).toBe(404);
  });

  it('removes nothing on a forged org.deleted for an organisation that exists', async () => {
    const before = await refusals();
    // Anyone with a place on a bus without credentials could publish this (docs/operations.md, "NATS permissions").
    const nats = await connect({ servers: stack.env.NATS_URL });
    try {
      const subject = topology(stack.env.NATS_SUBJECT_PREFIX!).subject('events.org.deleted');
      await nats.jetstream().publish(subject, JSON.stringify({ id: randomUUID(), type: 'org.deleted', orgDeleted: { organizationId: org.id, reason: 'user' } }), { msgID: randomUUID() });
    } finally {
      await nats.close();
    }
    await waitFor(async () => ((await refusals()) > before ? true : undefined), { timeoutMs: 30_000, description: 'the forged event refused' });
    expect((await rowsOf(org.id)).connections).toBe(1);
    expect((await owner.client.get(`/v0/orgs/${org.id}/sso/connections/${saml.id}`)).status).toBe(200);
  });
});
