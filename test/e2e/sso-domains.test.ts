import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { runNodeScript, SoftwareAuthenticator, startDnsServer, waitFor, type CreationOptionsJson, type DnsServer, type RequestOptionsJson } from '@latchkey/test-kit';
import { ApiClient } from '../support/api-client';
import { countMails, mailedToken, PASSWORD, signedInAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { followAuthorization, type GitHubAccount } from '../../services/oauth/test/provider-fixtures';
import { providerEnvironment, startGitHubFixture, startGoogleFixture, type GitHubFixture, type GoogleFixture } from '../support/oauth-providers';

/**
 * docs/api.md, "Enterprise SSO": an organisation proves its domains by DNS
 * (a real DNS server on a random port, through DNS_SERVERS) and enforces
 * SSO for them; then every other way in of its people answers 403
 * auth:sso_required with the organisation's slug, and a reset sends no
 * mail.
 */
let stack: E2eStack;
let dns: DnsServer;
let google: GoogleFixture;
let github: GitHubFixture;
const UNLIMITED = '100000';
/** Low, for the limit's test; no other test verifies this often as one account. */
const VERIFICATIONS_PER_ACCOUNT = 6;

beforeAll(async () => {
  [dns, google, github] = await Promise.all([startDnsServer(), startGoogleFixture(), startGitHubFixture()]);
  stack = await startE2eStack('sso-domains', {
    DNS_SERVERS: dns.address,
    RATE_LIMIT_IP_MAX: UNLIMITED,
    RATE_LIMIT_MAIL_MAX: UNLIMITED,
    RATE_LIMIT_DOMAIN_VERIFICATIONS: String(VERIFICATIONS_PER_ACCOUNT),
    ...providerEnvironment('http://app.example.test', { google, github }),
  });
}, 90_000);

afterAll(async () => {
  await stack?.destroy();
  await Promise.all([dns?.close(), google?.stop(), github?.stop()]);
});

type Account = Awaited<ReturnType<typeof signedInAccount>>;
interface Org {
  id: string;
  slug: string;
  sso_enforced: boolean;
}
interface Domain {
  domain: string;
  status: 'pending' | 'verified';
  verification?: { type: 'dns_txt'; name: string; value: string };
}

const tag = () => randomBytes(4).toString('hex');
const freshDomain = () => `corp-${tag()}.com`;

async function createOrg(owner: Account): Promise<Org> {
  const created = await owner.client.post<Org>('/v0/orgs', { name: 'Corp', slug: `corp-${tag()}` });
  expect(created.status).toBe(201);
  return created.body;
}

/** Claims a domain and publishes its TXT record, then verifies it. */
async function verifyDomain(owner: Account, org: Org, domain = freshDomain()): Promise<string> {
  const claimed = await owner.client.post<Domain>(`/v0/orgs/${org.id}/domains`, { domain });
  expect(claimed.status).toBe(201);
  dns.answer(claimed.body.verification!.name, { txt: [claimed.body.verification!.value] });
  expect((await owner.client.post(`/v0/orgs/${org.id}/domains/${domain}/verify`)).status).toBe(200);
  return domain;
}

/** Registers and verifies an account with an address of its own choosing, signed in. */
async function accountWithEmail(email: string): Promise<{ client: ApiClient; email: string; id: string }> {
  const client = new ApiClient(stack.gatewayUrl);
  const registered = await client.post<{ id: string }>('/v0/users', { handle: `p_${tag()}`, email, password: PASSWORD });
  expect(registered.status).toBe(201);
  const token = await mailedToken(stack, email, 'verify-email');
  expect((await client.post('/v0/auth/verify-email', { token })).status).toBe(200);
  expect((await client.post('/v0/auth/login', { email, password: PASSWORD })).status).toBe(200);
  return { client, email, id: registered.body.id };
}

/** The app's part of a provider sign-in: authorize, the browser at the provider, then code and state posted back. */
async function providerLogin(client: ApiClient, provider: 'google' | 'github') {
  const authorize = await client.get(`/v0/auth/oauth/${provider}/authorize?purpose=login`);
  expect(authorize.status).toBe(200);
  const { code, state } = await followAuthorization(authorize.body.authorization_url as string);
  return client.post(`/v0/auth/oauth/${provider}/login`, { code, state });
}

function githubAccount(email: string): GitHubAccount {
  const id = Math.floor(Math.random() * 1e9);
  return { user: { id, login: `octo${id}`, name: 'Octo', email: null, avatar_url: 'https://pics.example/o.png' }, emails: [{ email, primary: true, verified: true, visibility: 'private' }] };
}

describe('domains', () => {
  it('claims a domain with its DNS TXT challenge, verifies it once the record is there, lists, shows and removes it', async () => {
    const owner = await signedInAccount(stack, 'domainowner');
    const org = await createOrg(owner);
    const domain = freshDomain();
    const claimed = await owner.client.post<Domain>(`/v0/orgs/${org.id}/domains`, { domain: `${domain.toUpperCase()}.` });
    expect(claimed.status).toBe(201);
    expect(claimed.body).toMatchObject({
      domain,
      status: 'pending',
      verification: { type: 'dns_txt', name: `_latchkey-challenge.${domain}`, value: expect.stringMatching(/^latchkey-domain-verification=/) },
    });

    const verify = () => owner.client.post<Domain>(`/v0/orgs/${org.id}/domains/${domain}/verify`);
    expect(await verify()).toMatchObject({ status: 409, body: { code: 'org:domain_unverified' } });
    dns.answer(claimed.body.verification!.name, 'server_failure');
    expect(await verify()).toMatchObject({ status: 409, body: { code: 'org:domain_unverified' } });
    dns.answer(claimed.body.verification!.name, { txt: [claimed.body.verification!.value] });
    expect(await verify()).toMatchObject({ status: 200, body: { domain, status: 'verified' } });

    expect((await owner.client.get<{ items: Domain[] }>(`/v0/orgs/${org.id}/domains`)).body.items).toEqual([expect.objectContaining({ domain, status: 'verified' })]);
    expect(await owner.client.get(`/v0/orgs/${org.id}/domains/${domain}`)).toMatchObject({ status: 200, body: { domain, status: 'verified' } });
    expect((await owner.client.delete(`/v0/orgs/${org.id}/domains/${domain}`)).status).toBe(204);
    expect(await owner.client.get(`/v0/orgs/${org.id}/domains/${domain}`)).toMatchObject({ status: 404, body: { code: 'org:domain_not_found' } });
  });

  it('refuses public suffixes and free-mail domains with a validation problem, and a domain another organisation verified', async () => {
    const owner = await signedInAccount(stack, 'badomains');
    const org = await createOrg(owner);
    for (const domain of ['co.uk', 'gmail.com', '10.0.0.1', 'nope']) {
      const answer = await owner.client.post(`/v0/orgs/${org.id}/domains`, { domain });
      expect(answer).toMatchObject({ status: 400, body: { code: 'validation:invalid_input', errors: [expect.objectContaining({ field: 'domain' })] } });
    }
    expect(await owner.client.post(`/v0/orgs/${org.id}/domains`, { domain: 42 })).toMatchObject({ status: 400, body: { code: 'validation:invalid_input' } });

    const other = await signedInAccount(stack, 'rival');
    const rivalOrg = await createOrg(other);
    const domain = await verifyDomain(other, rivalOrg);
    expect(await owner.client.post(`/v0/orgs/${org.id}/domains`, { domain })).toMatchObject({ status: 409, body: { code: 'org:domain_taken' } });
  });

  it('limits the verifications an account asks for, each a DNS look-up, per account and not per organisation', async () => {
    const owner = await signedInAccount(stack, 'impatient');
    const org = await createOrg(owner);
    const domain = freshDomain();
    expect((await owner.client.post(`/v0/orgs/${org.id}/domains`, { domain })).status).toBe(201);
    for (let attempt = 0; attempt < VERIFICATIONS_PER_ACCOUNT; attempt += 1) {
      expect((await owner.client.post(`/v0/orgs/${org.id}/domains/${domain}/verify`)).status).toBe(409);
    }
    const limited = await owner.client.post(`/v0/orgs/${org.id}/domains/${domain}/verify`);
    expect(limited).toMatchObject({ status: 429, body: { code: 'rate_limit:exceeded' } });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // A stranger's attempts on the organisation count against the stranger alone.
    const stranger = await signedInAccount(stack, 'prober');
    expect((await stranger.client.post(`/v0/orgs/${org.id}/domains/${domain}/verify`)).status).toBe(404);
  });

  it('needs sso:manage, and another organisation’s domains are not found', async () => {
    const owner = await signedInAccount(stack, 'manager');
    const org = await createOrg(owner);
    const domain = await verifyDomain(owner, org);
    const member = await signedInAccount(stack, 'plainmember');
    expect((await owner.client.post(`/v0/orgs/${org.id}/invitations`, { email: member.email, role: 'member' })).status).toBe(201);
    const token = await mailedToken(stack, member.email, 'invitations/accept');
    expect((await member.client.post('/v0/invitations/accept', { token })).status).toBe(200);
    for (const answer of [
      await member.client.get(`/v0/orgs/${org.id}/domains`),
      await member.client.post(`/v0/orgs/${org.id}/domains`, { domain: freshDomain() }),
      await member.client.delete(`/v0/orgs/${org.id}/domains/${domain}`),
      await member.client.patch(`/v0/orgs/${org.id}`, { sso_enforced: true }),
    ]) {
      expect(answer).toMatchObject({ status: 403, body: { code: 'org:forbidden' } });
    }
    const stranger = await signedInAccount(stack, 'stranger');
    for (const answer of [
      await stranger.client.get(`/v0/orgs/${org.id}/domains`),
      await stranger.client.get(`/v0/orgs/${org.id}/domains/${domain}`),
      await stranger.client.delete(`/v0/orgs/${org.id}/domains/${domain}`),
      await stranger.client.post(`/v0/orgs/${org.id}/domains/${domain}/verify`),
    ]) {
      expect(answer).toMatchObject({ status: 404, body: { code: 'org:not_found' } });
    }
    expect(await new ApiClient(stack.gatewayUrl).get(`/v0/orgs/${org.id}/domains`)).toMatchObject({ status: 401 });
    expect(await owner.client.get('/v0/orgs/not-a-uuid/domains')).toMatchObject({ status: 400, body: { code: 'validation:invalid_input' } });
  });
});

describe('enforcement', () => {
  it('needs a verified domain, then refuses password, passkey, Google and GitHub sign-ins of the domain’s people, and sends them no reset mail', async () => {
    const owner = await signedInAccount(stack, 'enforcer');
    const org = await createOrg(owner);
    expect(await owner.client.patch(`/v0/orgs/${org.id}`, { sso_enforced: true })).toMatchObject({ status: 409, body: { code: 'org:domain_unverified' } });
    const domain = await verifyDomain(owner, org);

    // Before enforcement: a password and a passkey, and an account made by a Google sign-up.
    const person = await accountWithEmail(`pat.${tag()}@${domain}`);
    const authenticator = new SoftwareAuthenticator({ origin: stack.env.PUBLIC_APP_URL! });
    const options = await person.client.post<CreationOptionsJson & Record<string, unknown>>('/v0/auth/passkeys/registration/options');
    expect((await person.client.post('/v0/auth/passkeys/registration/verify', { response: authenticator.register(options.body) })).status).toBe(201);
    const googleEmail = `gil.${tag()}@${domain}`;
    const googleSub = `g-${tag()}`;
    await google.nextLogin({ idToken: { sub: googleSub, email: googleEmail, email_verified: true, name: 'Gil' } });
    const signup = new ApiClient(stack.gatewayUrl);
    const pending = await providerLogin(signup, 'google');
    expect(pending.body).toMatchObject({ status: 'pending_signup' });
    expect((await signup.post('/v0/auth/complete-signup', { pending_token: pending.body.pending_token, handle: `gil_${tag()}` })).status).toBe(201);

    const enforced = await owner.client.patch<Org>(`/v0/orgs/${org.id}`, { sso_enforced: true });
    expect(enforced).toMatchObject({ status: 200, body: { id: org.id, sso_enforced: true } });
    const required = { status: 403, body: { code: 'auth:sso_required', org_slug: org.slug } };

    const browser = new ApiClient(stack.gatewayUrl);
    expect(await browser.post('/v0/auth/login', { email: person.email, password: PASSWORD })).toMatchObject(required);
    expect(await browser.post('/v0/auth/login', { email: `nobody.${tag()}@${domain}`, password: PASSWORD })).toMatchObject(required);
    const requestOptions = await browser.post<RequestOptionsJson & Record<string, unknown>>('/v0/auth/passkeys/authentication/options');
    expect(await browser.post('/v0/auth/passkeys/authentication/verify', { response: authenticator.authenticate(requestOptions.body) })).toMatchObject(required);
    await google.nextLogin({ idToken: { sub: googleSub, email: googleEmail, email_verified: true, name: 'Gil' } });
    expect(await providerLogin(browser, 'google')).toMatchObject(required);
    await github.nextLogin(githubAccount(`newcomer.${tag()}@${domain}`));
    expect(await providerLogin(browser, 'github')).toMatchObject(required);
    expect(browser.sessionCookie).toBeUndefined();

    const resetsBefore = countMails(stack, person.email, 'reset-password');
    expect((await browser.post('/v0/auth/forgot-password', { email: person.email })).status).toBe(202);
    // A reset asked for an address outside the domain is mailed: once it arrives, the other would have too.
    const outsider = await signedInAccount(stack, 'outsider');
    expect((await browser.post('/v0/auth/forgot-password', { email: outsider.email })).status).toBe(202);
    await mailedToken(stack, outsider.email, 'reset-password');
    expect(countMails(stack, person.email, 'reset-password')).toBe(resetsBefore);
    expect(await new ApiClient(stack.gatewayUrl).post('/v0/auth/login', { email: outsider.email, password: PASSWORD })).toMatchObject({ status: 200 });

    // Turned off again, the password signs in.
    expect(await owner.client.patch(`/v0/orgs/${org.id}`, { sso_enforced: false })).toMatchObject({ status: 200, body: { sso_enforced: false } });
    await waitFor(async () => ((await new ApiClient(stack.gatewayUrl).post('/v0/auth/login', { email: person.email, password: PASSWORD })).status === 200 ? true : undefined), {
      description: 'a password sign-in once enforcement is off',
    });
  }, 60_000);
});

describe('the break-glass', () => {
  /** latchkey-admin as an operator runs it, with JSON rows. */
  async function latchkeyAdmin(...args: string[]) {
    const cli = path.resolve(__dirname, '../../services/identity/dist/admin-cli.js');
    return runNodeScript(cli, ['--json', '--operator', 'sso-e2e operator', ...args], {
      PATH: process.env.PATH,
      ADMIN_GRPC_ADDRESS: `127.0.0.1:${stack.processes.get('identity')!.ports.ADMIN_GRPC_PORT}`,
    });
  }

  it('lets an operator turn enforcement off for a locked-out organisation with latchkey-admin, and on again', async () => {
    const owner = await signedInAccount(stack, 'lockedout');
    const org = await createOrg(owner);
    const domain = await verifyDomain(owner, org);
    const person = await accountWithEmail(`sam.${tag()}@${domain}`);
    expect((await owner.client.patch(`/v0/orgs/${org.id}`, { sso_enforced: true })).status).toBe(200);
    const login = () => new ApiClient(stack.gatewayUrl).post('/v0/auth/login', { email: person.email, password: PASSWORD });
    expect(await login()).toMatchObject({ status: 403, body: { code: 'auth:sso_required', org_slug: org.slug } });

    const off = await latchkeyAdmin('orgs', 'sso-enforcement', org.id, 'off');
    expect(off.code).toBe(0);
    expect(JSON.parse(off.stdout.trim())).toMatchObject({ id: org.id, slug: org.slug, sso_enforced: 'no' });
    expect(await login()).toMatchObject({ status: 200 });
    expect((await owner.client.get<Org>(`/v0/orgs/${org.id}`)).body.sso_enforced).toBe(false);

    expect((await latchkeyAdmin('orgs', 'sso-enforcement', org.id, 'on')).code).toBe(0);
    expect(await login()).toMatchObject({ status: 403, body: { code: 'auth:sso_required' } });
    const usage = await latchkeyAdmin('orgs', 'sso-enforcement', org.id, 'maybe');
    expect(usage.code).not.toBe(0);
    expect(usage.stderr).toContain('on or off');
  });
});
