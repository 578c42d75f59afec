import { randomBytes, randomUUID } from 'node:crypto';
import { startDnsServer, waitFor, type DnsServer } from '@latchkey/test-kit';
import { ApiClient, type ApiResponse } from '../support/api-client';
import { mailedToken, PASSWORD, signedInAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { ISSUER, OidcBrowser, authorizationRequest, client, relyingParty } from '../support/oidc-relying-party';

/**
 * docs/scim.md: SCIM 2.0 at /scim/v2 with an organisation's bearer token,
 * replayed as Okta's SCIM 2.0 test plan and Microsoft Entra ID's
 * provisioning send it (request and response shapes from their public
 * documentation), then isolation between organisations, errors, all-or-none
 * PATCH and deprovisioning under SSO enforcement.
 */
let stack: E2eStack;
let dns: DnsServer;
const UNLIMITED = '100000';
const SCIM_JSON = 'application/scim+json';
const RP_SECRET = randomBytes(32).toString('base64url');
const RP_REDIRECT = 'http://rp.localhost/callback';

beforeAll(async () => {
  dns = await startDnsServer();
  // An application signing the organisation's people in through Latchkey, whose refresh tokens deprovisioning ends.
  const clients = [{ client_id: 'app', client_secret: RP_SECRET, client_name: 'App', redirect_uris: [RP_REDIRECT], grant_types: ['authorization_code', 'refresh_token'] }];
  stack = await startE2eStack('scim', { PUBLIC_APP_URL: ISSUER, OIDC_CLIENTS: JSON.stringify(clients), DNS_SERVERS: dns.address, RATE_LIMIT_IP_MAX: UNLIMITED, RATE_LIMIT_MAIL_MAX: UNLIMITED, RATE_LIMIT_SCIM_REQUESTS: UNLIMITED });
}, 90_000);

afterAll(async () => {
  await stack?.destroy();
  await dns?.close();
});

type Account = Awaited<ReturnType<typeof signedInAccount>>;
interface Org {
  id: string;
  owner: Account;
  domain: string;
  token: string;
  scim: ScimClient;
}

const tag = () => randomBytes(4).toString('hex');

/** A refresh token of the application for the person signed in on `browserClient`, as an OpenID relying party gets it. */
async function openIdRefreshToken(browserClient: ApiClient): Promise<{ config: client.Configuration; refreshToken: string }> {
  const config = await relyingParty(stack.gatewayUrl, 'app', { secret: RP_SECRET });
  const browser = new OidcBrowser(browserClient, stack.gatewayUrl);
  const request = await authorizationRequest(config, { scope: 'openid email offline_access', prompt: 'consent' });
  let { url } = await browser.navigate(request.url);
  if (url.pathname.startsWith('/oidc/interaction/')) {
    const confirmed = await browserClient.post<{ redirect_to: string }>(`/v0/oidc/interactions/${OidcBrowser.interactionUid(url)}/confirm`);
    expect(confirmed.status).toBe(200);
    ({ url } = await browser.navigate(confirmed.body.redirect_to));
  }
  const tokens = await request.exchange(url);
  expect(tokens.refresh_token).toBeDefined();
  return { config, refreshToken: tokens.refresh_token! };
}

/** A resource as answered: its id, and whatever else each test reads. */
type ScimResource = { id: string; userName: string; externalId: string } & Record<string, unknown>;

/** A client of /scim/v2 with a bearer token, sending application/scim+json as IdPs do. */
class ScimClient {
  private readonly http: ApiClient;
  constructor(
    baseUrl: string,
    private readonly token: string,
  ) {
    this.http = new ApiClient(baseUrl);
  }
  call<T = Record<string, unknown>>(method: string, path: string, json?: unknown, contentType = SCIM_JSON): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}` };
    if (json !== undefined) headers['content-type'] = contentType;
    return this.http.request<T>(method, `/scim/v2${path}`, { headers, ...(json === undefined ? {} : { body: typeof json === 'string' ? json : JSON.stringify(json) }) });
  }
}

/** An organisation with a verified domain and a SCIM token. */
async function scimOrg(label: string): Promise<Org> {
  const owner = await signedInAccount(stack, label);
  const created = await owner.client.post<{ id: string }>('/v0/orgs', { name: 'Corp', slug: `scim-${tag()}` });
  expect(created.status).toBe(201);
  const id = created.body.id;
  const domain = `scim-${tag()}.com`;
  const claimed = await owner.client.post<{ verification: { name: string; value: string } }>(`/v0/orgs/${id}/domains`, { domain });
  dns.answer(claimed.body.verification.name, { txt: [claimed.body.verification.value] });
  expect((await owner.client.post(`/v0/orgs/${id}/domains/${domain}/verify`)).status).toBe(200);
  const issued = await owner.client.post<{ id: string; token: string; created_at: string }>(`/v0/orgs/${id}/scim/tokens`, { description: 'Okta' });
  expect(issued.status).toBe(201);
  return { id, owner, domain, token: issued.body.token, scim: new ScimClient(stack.gatewayUrl, issued.body.token) };
}

const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

function scimError(status: number, scimType?: string) {
  return { status, body: { schemas: [ERROR_SCHEMA], status: String(status), ...(scimType ? { scimType } : {}) } };
}

/** Okta's POST /Users body (Okta SCIM 2.0 test plan, "Create a user"). */
function oktaUser(email: string, externalId = `00u${tag()}`) {
  return {
    schemas: [USER_SCHEMA],
    userName: email,
    name: { givenName: 'Test', familyName: 'User' },
    emails: [{ primary: true, value: email, type: 'work' }],
    displayName: 'Test User',
    locale: 'en-US',
    externalId,
    groups: [],
    password: 'never-kept-1',
    active: true,
  };
}

describe('Okta SCIM 2.0 test plan', () => {
  it('discovers, searches, creates, reads, updates, deactivates, reactivates, groups and deletes', async () => {
    const org = await scimOrg('okta');
    const config = await org.scim.call('GET', '/ServiceProviderConfig');
    expect(config).toMatchObject({ status: 200, body: { patch: { supported: true }, filter: { supported: true } } });
    expect(config.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    expect((await org.scim.call('GET', '/ResourceTypes')).body).toMatchObject({ totalResults: 2, Resources: [{ id: 'User' }, { id: 'Group' }] });
    expect((await org.scim.call('GET', '/Schemas')).body).toMatchObject({ totalResults: 2 });

    const email = `jane.${tag()}@${org.domain}`;
    const search = await org.scim.call('GET', `/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}&startIndex=1&count=100`);
    expect(search).toMatchObject({ status: 200, body: { schemas: [LIST_SCHEMA], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] } });

    const created = await org.scim.call<ScimResource>('POST', '/Users', oktaUser(email));
    expect(created).toMatchObject({
      status: 201,
      body: {
        schemas: [USER_SCHEMA],
        id: expect.any(String),
        userName: email,
        active: true,
        name: { givenName: 'Test', familyName: 'User' },
        emails: [{ value: email, type: 'work', primary: true }],
        meta: { resourceType: 'User', location: `${stack.env.PUBLIC_APP_URL}/scim/v2/Users/${created.body.id}`, created: expect.any(String), lastModified: expect.any(String) },
      },
    });
    expect(created.body).not.toHaveProperty('password');
    const id = created.body.id;
    // The account is a member with source scim.
    const members = await org.owner.client.get<{ items: { user: { id: string; email: string }; source: string }[] }>(`/v0/orgs/${org.id}/members`);
    expect(members.body.items).toContainEqual(expect.objectContaining({ user: expect.objectContaining({ id, email }), source: 'scim' }));

    expect(await org.scim.call('POST', '/Users', oktaUser(email))).toMatchObject(scimError(409, 'uniqueness'));
    const found = await org.scim.call('GET', `/Users?filter=${encodeURIComponent(`userName eq "${email.toUpperCase()}"`)}&startIndex=1&count=100`);
    expect(found.body).toMatchObject({ totalResults: 1, itemsPerPage: 1, startIndex: 1, Resources: [{ id, userName: email }] });
    expect(await org.scim.call('GET', `/Users/${id}`)).toMatchObject({ status: 200, body: { id, userName: email, active: true } });
    expect(await org.scim.call('GET', `/Users/${randomUUID()}`)).toMatchObject(scimError(404));

    // Okta's profile update is a PUT of the whole User.
    const put = await org.scim.call('PUT', `/Users/${id}`, { ...oktaUser(email, created.body.externalId), id, name: { givenName: 'Another', familyName: 'User' } });
    expect(put).toMatchObject({ status: 200, body: { id, name: { givenName: 'Another', familyName: 'User' } } });

    // Deactivate and reactivate: PATCH replace with a value object and no path.
    const deactivate = { schemas: [PATCH_SCHEMA], Operations: [{ op: 'replace', value: { active: false } }] };
    expect(await org.scim.call('PATCH', `/Users/${id}`, deactivate)).toMatchObject({ status: 200, body: { id, active: false } });
    const afterSuspension = await org.owner.client.get<{ items: { user: { id: string } }[] }>(`/v0/orgs/${org.id}/members`);
    expect(afterSuspension.body.items.map((member) => member.user.id)).not.toContain(id);
    const active = await org.scim.call('GET', `/Users?filter=${encodeURIComponent('active eq false')}`);
    expect(active.body).toMatchObject({ totalResults: 1, Resources: [{ id }] });
    expect(await org.scim.call('PATCH', `/Users/${id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: 'replace', value: { active: true } }] })).toMatchObject({
      status: 200,
      body: { active: true },
    });

    // Groups: create with a member, rename, add and remove members, find by displayName.
    const other = await org.scim.call<ScimResource>('POST', '/Users', oktaUser(`john.${tag()}@${org.domain}`));
    const group = await org.scim.call<ScimResource>('POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'Engineering', members: [{ value: id, display: email }] });
    expect(group).toMatchObject({ status: 201, body: { schemas: [GROUP_SCHEMA], id: expect.any(String), displayName: 'Engineering', members: [{ value: id }], meta: { resourceType: 'Group' } } });
    const groupId = group.body.id;
    const patched = await org.scim.call('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_SCHEMA],
      Operations: [
        { op: 'replace', value: { id: groupId, displayName: 'Engineers' } },
        { op: 'add', path: 'members', value: [{ value: other.body.id, display: other.body.userName }] },
        { op: 'remove', path: `members[value eq "${id}"]` },
      ],
    });
    expect(patched.status).toBe(204);
    const byName = await org.scim.call('GET', `/Groups?filter=${encodeURIComponent('displayName eq "Engineers"')}&startIndex=1&count=100`);
    expect(byName.body).toMatchObject({ totalResults: 1, Resources: [{ id: groupId, displayName: 'Engineers', members: [{ value: other.body.id }] }] });
    expect((await org.scim.call('GET', `/Users/${other.body.id}`)).body).toMatchObject({ groups: [{ value: groupId, display: 'Engineers' }] });

    // A group mapped to a role gives it to its members.
    const mapped = await org.owner.client.patch(`/v0/orgs/${org.id}/scim/groups/${groupId}`, { role: 'admin' });
    expect(mapped).toMatchObject({ status: 200, body: { id: groupId, role: 'admin' } });
    const roles = await org.owner.client.get<{ items: { user: { id: string }; role: string }[] }>(`/v0/orgs/${org.id}/members`);
    expect(roles.body.items.find((member) => member.user.id === other.body.id)?.role).toBe('admin');

    expect((await org.scim.call('DELETE', `/Groups/${groupId}`)).status).toBe(204);
    expect((await org.scim.call('DELETE', `/Users/${id}`)).status).toBe(204);
    expect(await org.scim.call('GET', `/Users/${id}`)).toMatchObject(scimError(404));
    const left = await org.owner.client.get<{ items: { user: { id: string }; role: string }[] }>(`/v0/orgs/${org.id}/members`);
    expect(left.body.items.map((member) => member.user.id)).not.toContain(id);
    // The unmapped group's former member is a plain member again.
    expect(left.body.items.find((member) => member.user.id === other.body.id)?.role).toBe('member');

    // Every change is in the audit log with the token as its actor.
    const audit = await org.owner.client.get<{ items: { action: string; actor: { type: string } }[] }>(`/v0/orgs/${org.id}/audit-log?limit=100`);
    const scimActions = audit.body.items.filter((entry) => entry.actor.type === 'scim').map((entry) => entry.action);
    expect(scimActions).toEqual(expect.arrayContaining(['org.member.added', 'org.member.suspended', 'org.member.reactivated', 'org.member.removed', 'scim.group.created', 'scim.group.updated']));
  });
});

describe('Microsoft Entra ID provisioning', () => {
  it('matches on userName and externalId, and sends ops in capitals, path filters, string booleans and member lists', async () => {
    const org = await scimOrg('entra');
    const email = `alex.${tag()}@${org.domain}`;
    const externalId = randomUUID();
    const none = await org.scim.call('GET', `/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}`);
    expect(none.body).toMatchObject({ totalResults: 0, Resources: [] });
    // Entra's create body (Microsoft's "Tutorial: Develop and plan provisioning for a SCIM endpoint"), sent as application/json.
    const created = await org.scim.call<ScimResource>(
      'POST',
      '/Users',
      {
        schemas: [USER_SCHEMA, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
        externalId,
        userName: email,
        active: 'True',
        emails: [{ primary: true, type: 'work', value: email }],
        meta: { resourceType: 'User' },
        name: { formatted: 'Alex Doe', familyName: 'Doe', givenName: 'Alex' },
        roles: [],
      },
      'application/json',
    );
    expect(created).toMatchObject({ status: 201, body: { userName: email, externalId, active: true } });
    const id = created.body.id;
    const byExternal = await org.scim.call('GET', `/Users?filter=${encodeURIComponent(`externalId eq "${externalId}"`)}`);
    expect(byExternal.body).toMatchObject({ totalResults: 1, Resources: [{ id }] });
    const byWorkEmail = await org.scim.call('GET', `/Users?filter=${encodeURIComponent(`emails[type eq "work"].value eq "${email}"`)}`);
    expect(byWorkEmail.body).toMatchObject({ totalResults: 1, Resources: [{ id }] });

    const update = await org.scim.call('PATCH', `/Users/${id}`, {
      schemas: [PATCH_SCHEMA],
      Operations: [
        { op: 'Replace', path: 'displayName', value: 'Alex D.' },
        { op: 'Replace', path: 'name.givenName', value: 'Alexandra' },
        { op: 'Replace', path: 'emails[type eq "work"].value', value: email },
        { op: 'Add', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department', value: 'R&D' },
        { op: 'Replace', path: 'active', value: 'False' },
      ],
    });
    expect(update).toMatchObject({ status: 200, body: { displayName: 'Alex D.', name: { givenName: 'Alexandra', familyName: 'Doe' }, active: false } });
    expect((await org.scim.call('PATCH', `/Users/${id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: 'Replace', path: 'active', value: 'True' }] })).body).toMatchObject({ active: true });

    const group = await org.scim.call<ScimResource>('POST', '/Groups', { schemas: [GROUP_SCHEMA], externalId: randomUUID(), displayName: 'Sales', members: [] });
    expect(group.status).toBe(201);
    const groupId = group.body.id;
    expect((await org.scim.call('GET', `/Groups?filter=${encodeURIComponent('displayName eq "Sales"')}&excludedAttributes=members`)).body).toMatchObject({
      totalResults: 1,
      Resources: [expect.not.objectContaining({ members: expect.anything() })],
    });
    expect((await org.scim.call('PATCH', `/Groups/${groupId}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: 'Add', path: 'members', value: [{ value: id }] }] })).status).toBe(204);
    const membership = await org.scim.call('GET', `/Groups?filter=${encodeURIComponent(`id eq "${groupId}" and members[value eq "${id}"]`)}&excludedAttributes=members`);
    expect(membership.body).toMatchObject({ totalResults: 1 });
    expect((await org.scim.call('PATCH', `/Groups/${groupId}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: 'Remove', path: 'members', value: [{ value: id }] }] })).status).toBe(204);
    expect((await org.scim.call('GET', `/Groups/${groupId}`)).body).toMatchObject({ members: [] });
    expect((await org.scim.call('DELETE', `/Users/${id}`)).status).toBe(204);
  });

  it('adds a thousand members in one group PATCH, and applies nothing of a PATCH with one unknown member', async () => {
    const org = await scimOrg('bulk');
    const ids: string[] = [];
    // Ten at a time, as an identity provider's provisioning runs in parallel.
    for (let batch = 0; batch < 100; batch += 1) {
      const created = await Promise.all(
        Array.from({ length: 10 }, () => org.scim.call<{ id: string }>('POST', '/Users', { schemas: [USER_SCHEMA], userName: `u${tag()}${tag()}@${org.domain}` })),
      );
      for (const answer of created) {
        expect(answer.status).toBe(201);
        ids.push(answer.body.id);
      }
    }
    const group = await org.scim.call<{ id: string }>('POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'Everyone' });
    const started = Date.now();
    const added = await org.scim.call('PATCH', `/Groups/${group.body.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: 'add', path: 'members', value: ids.map((value) => ({ value })) }] });
    const elapsed = Date.now() - started;
    expect(added.status).toBe(204);
    expect(elapsed).toBeLessThan(2_000);
    const page = await org.scim.call<{ totalResults: number; Resources: unknown[]; itemsPerPage: number; startIndex: number }>('GET', '/Users?startIndex=901&count=100');
    expect(page.body).toMatchObject({ totalResults: 1000, itemsPerPage: 100, startIndex: 901 });

    const half = await org.scim.call('PATCH', `/Groups/${group.body.id}`, {
      schemas: [PATCH_SCHEMA],
      Operations: [
        { op: 'replace', path: 'displayName', value: 'Renamed' },
        { op: 'remove', path: 'members', value: ids.slice(0, 10).map((value) => ({ value })) },
        { op: 'add', path: 'members', value: [{ value: ids[0] }, { value: randomUUID() }] },
      ],
    });
    expect(half).toMatchObject(scimError(400, 'invalidValue'));
    const unchanged = await org.scim.call<{ displayName: string; members: unknown[] }>('GET', `/Groups/${group.body.id}`);
    expect(unchanged.body.displayName).toBe('Everyone');
    expect(unchanged.body.members).toHaveLength(1000);
  }, 120_000);
});

describe('the directory an identity provider reads', () => {
  it('loses a member an admin removes, so that the provider may provision the person again', async () => {
    const org = await scimOrg('removed');
    const emails = [`kept.${tag()}@${org.domain}`, `removed.${tag()}@${org.domain}`];
    const [kept, removed] = await Promise.all(
      emails.map(async (userName) => (await org.scim.call<{ id: string }>('POST', '/Users', { schemas: [USER_SCHEMA], userName })).body.id),
    );
    expect((await org.scim.call<{ totalResults: number }>('GET', '/Users')).body.totalResults).toBe(2);

    expect((await org.owner.client.delete(`/v0/orgs/${org.id}/members/${removed}`)).status).toBe(204);
    const listed = await org.scim.call<{ totalResults: number; Resources: { id: string }[] }>('GET', '/Users?startIndex=1&count=10');
    expect(listed.body).toMatchObject({ totalResults: 1, Resources: [{ id: kept }] });
    expect((await org.scim.call('GET', `/Users/${removed}`)).status).toBe(404);
    expect((await org.scim.call('GET', `/Users?filter=${encodeURIComponent(`userName eq "${emails[1]}"`)}`)).body).toMatchObject({ totalResults: 0 });
    const again = await org.scim.call<{ id: string; active: boolean }>('POST', '/Users', { schemas: [USER_SCHEMA], userName: emails[1] });
    expect(again).toMatchObject({ status: 201, body: { id: removed, active: true } });
    expect((await org.scim.call<{ totalResults: number }>('GET', '/Users')).body.totalResults).toBe(2);
  });
});

describe('isolation and errors', () => {
  it('keeps each token to its organisation, and answers bad input with SCIM errors, never a 5xx', async () => {
    const [a, b] = await Promise.all([scimOrg('tenant_a'), scimOrg('tenant_b')]);
    const user = await a.scim.call<{ id: string }>('POST', '/Users', { schemas: [USER_SCHEMA], userName: `x${tag()}@${a.domain}` });
    const group = await a.scim.call<{ id: string }>('POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'A team' });
    const replace = { schemas: [PATCH_SCHEMA], Operations: [{ op: 'replace', value: { active: false } }] };
    expect(await b.scim.call('GET', `/Users/${user.body.id}`)).toMatchObject(scimError(404));
    expect(await b.scim.call('PATCH', `/Users/${user.body.id}`, replace)).toMatchObject(scimError(404));
    expect(await b.scim.call('PUT', `/Users/${user.body.id}`, { userName: 'x@y.example' })).toMatchObject(scimError(404));
    expect(await b.scim.call('DELETE', `/Users/${user.body.id}`)).toMatchObject(scimError(404));
    expect(await b.scim.call('GET', `/Groups/${group.body.id}`)).toMatchObject(scimError(404));
    expect(await b.scim.call('DELETE', `/Groups/${group.body.id}`)).toMatchObject(scimError(404));
    expect((await b.scim.call('GET', '/Users')).body).toMatchObject({ totalResults: 0 });
    const own = await b.scim.call<{ id: string }>('POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'B team' });
    expect(await b.scim.call('PATCH', `/Groups/${own.body.id}`, { Operations: [{ op: 'add', path: 'members', value: [{ value: user.body.id }] }] })).toMatchObject(scimError(400, 'invalidValue'));
    // A's address in B: not a verified domain of B.
    expect(await b.scim.call('POST', '/Users', { userName: `y${tag()}@${a.domain}` })).toMatchObject(scimError(400, 'invalidValue'));
    // B's administrator cannot map A's group, nor list A's tokens.
    expect(await b.owner.client.patch(`/v0/orgs/${b.id}/scim/groups/${group.body.id}`, { role: 'admin' })).toMatchObject({ status: 404, body: { code: 'scim:group_not_found' } });
    expect(await b.owner.client.get(`/v0/orgs/${a.id}/scim/tokens`)).toMatchObject({ status: 404, body: { code: 'org:not_found' } });
    expect((await a.scim.call('GET', `/Users/${user.body.id}`)).body).toMatchObject({ active: true });

    for (const filter of ['userName eq', 'userName co "x"', 'title eq "x"', '((', 'userName eq "x" or userName eq "y"']) {
      expect(await a.scim.call('GET', `/Users?filter=${encodeURIComponent(filter)}`)).toMatchObject(scimError(400, 'invalidFilter'));
    }
    expect(await a.scim.call('POST', '/Users', '{"userName": ')).toMatchObject(scimError(400, 'invalidSyntax'));
    expect(await a.scim.call('POST', '/Users', [1, 2])).toMatchObject(scimError(400, 'invalidSyntax'));
    expect(await a.scim.call('POST', '/Users', { userName: 42 })).toMatchObject(scimError(400, 'invalidValue'));
    expect(await a.scim.call('POST', '/Users', { userName: `z${tag()}@${a.domain}`, active: 'maybe' })).toMatchObject(scimError(400, 'invalidValue'));
    expect(await a.scim.call('PATCH', `/Users/${user.body.id}`, { Operations: [{ op: 'jump', path: 'active', value: true }] })).toMatchObject(scimError(400, 'invalidSyntax'));
    expect(await a.scim.call('PATCH', `/Users/${user.body.id}`, { Operations: [{ op: 'replace', path: 'emails[type eq', value: 'x' }] })).toMatchObject(scimError(400, 'invalidPath'));
    expect(await a.scim.call('PATCH', `/Users/${user.body.id}`, { Operations: 'none' })).toMatchObject(scimError(400, 'invalidSyntax'));
    expect(await a.scim.call('PATCH', `/Users/${user.body.id}`, { Operations: [{ op: 'replace', path: 'userName', value: `other@${a.domain}` }] })).toMatchObject(scimError(400, 'mutability'));
    expect(await a.scim.call('GET', '/Users/not-a-uuid')).toMatchObject(scimError(404));

    expect(await new ScimClient(stack.gatewayUrl, 'lk_scim_forged').call('GET', '/Users')).toMatchObject(scimError(401));
    expect((await new ApiClient(stack.gatewayUrl).get('/scim/v2/Users')).status).toBe(401);
    const tokens = await a.owner.client.get<{ items: { id: string; last_used_at: string | null }[] }>(`/v0/orgs/${a.id}/scim/tokens`);
    expect(tokens.body.items).toEqual([expect.objectContaining({ id: expect.any(String), last_used_at: expect.any(String) })]);
    expect(tokens.body.items[0]).not.toHaveProperty('token');
    expect((await a.owner.client.request('DELETE', `/v0/orgs/${a.id}/scim/tokens/${tokens.body.items[0]!.id}`)).status).toBe(204);
    expect(await a.scim.call('GET', '/Users')).toMatchObject(scimError(401));
    expect(stack.allOutput()).not.toContain(a.token);
  });
});

describe('deprovisioning', () => {
  it('ends a suspended member’s sessions, service tokens and OpenID refresh tokens within 5 s when the organisation enforces SSO', async () => {
    const org = await scimOrg('deprov');
    const email = `worker.${tag()}@${org.domain}`;
    const person = new ApiClient(stack.gatewayUrl);
    expect((await person.post('/v0/users', { handle: `w_${tag()}`, email, password: PASSWORD })).status).toBe(201);
    expect((await person.post('/v0/auth/verify-email', { token: await mailedToken(stack, email, 'verify-email') })).status).toBe(200);
    // The SCIM link takes a password set before the address was proved for a squatter's: it is dropped and a reset mailed.
    const linked = await org.scim.call<{ id: string }>('POST', '/Users', { schemas: [USER_SCHEMA], userName: email });
    expect(linked.status).toBe(201);
    const token = await mailedToken(stack, email, 'reset-password');
    expect((await person.post('/v0/auth/reset-password', { token, new_password: 'a fresh password here' })).status).toBe(204);
    expect((await person.post('/v0/auth/login', { email, password: 'a fresh password here' })).status).toBe(200);
    expect((await person.get('/v0/users/me')).status).toBe(200);
    expect((await person.post('/v0/auth/token')).status).toBe(200);
    expect((await person.get(`/v0/orgs/${org.id}`)).status).toBe(200);

    // Without enforcement a suspension takes the membership away, not the sessions.
    const off = { schemas: [PATCH_SCHEMA], Operations: [{ op: 'replace', path: 'active', value: false }] };
    const on = { schemas: [PATCH_SCHEMA], Operations: [{ op: 'replace', path: 'active', value: true }] };
    expect((await org.scim.call('PATCH', `/Users/${linked.body.id}`, off)).status).toBe(200);
    expect(await person.get(`/v0/orgs/${org.id}`)).toMatchObject({ status: 404, body: { code: 'org:not_found' } });
    expect((await person.get<{ items: unknown[] }>('/v0/orgs')).body.items).toEqual([]);
    expect((await person.get('/v0/users/me')).status).toBe(200);
    expect((await org.scim.call('PATCH', `/Users/${linked.body.id}`, on)).status).toBe(200);
    expect((await person.get(`/v0/orgs/${org.id}`)).status).toBe(200);

    const openId = await openIdRefreshToken(person);
    expect(await client.tokenIntrospection(openId.config, openId.refreshToken)).toMatchObject({ active: true });
    expect((await org.owner.client.patch(`/v0/orgs/${org.id}`, { sso_enforced: true })).status).toBe(200);

    const suspended = await org.scim.call('PATCH', `/Users/${linked.body.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: 'replace', path: 'active', value: false }] });
    expect(suspended).toMatchObject({ status: 200, body: { active: false } });
    await waitFor(
      async () => {
        const [me, jwt, refreshToken] = await Promise.all([
          person.get('/v0/users/me'),
          person.post('/v0/auth/token'),
          client.tokenIntrospection(openId.config, openId.refreshToken),
        ]);
        return me.status === 401 && jwt.status === 401 && refreshToken.active === false ? true : undefined;
      },
      { timeoutMs: 5_000, description: 'the suspended member’s session, token refresh and OpenID refresh token refused' },
    );
    await expect(client.refreshTokenGrant(openId.config, openId.refreshToken)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await org.scim.call('PATCH', `/Users/${linked.body.id}`, { Operations: [{ op: 'replace', path: 'active', value: 'True' }] })).body).toMatchObject({ active: true });
  });
});

describe('the administrators’ view', () => {
  it('lists the groups of its own organisation only, with roles and member counts, and when a token was last used', async () => {
    const [a, b] = await Promise.all([scimOrg('view_a'), scimOrg('view_b')]);
    type Listed = { items: { id: string; last_used_at: string | null }[] };
    const before = await a.owner.client.get<Listed>(`/v0/orgs/${a.id}/scim/tokens`);
    expect(before.body.items).toEqual([expect.objectContaining({ last_used_at: null })]);

    const user = await a.scim.call<{ id: string }>('POST', '/Users', { schemas: [USER_SCHEMA], userName: `v${tag()}@${a.domain}` });
    const used = (await a.owner.client.get<Listed>(`/v0/orgs/${a.id}/scim/tokens`)).body.items[0]!.last_used_at;
    expect(Date.parse(used!)).toBeGreaterThan(Date.now() - 60_000);
    const engineers = await a.scim.call<{ id: string }>('POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'Engineers', members: [{ value: user.body.id }] });
    const admins = await a.scim.call<{ id: string }>('POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'admins' });
    await b.scim.call('POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'B only' });
    // Written at most once a minute per token: the calls since did not move it.
    expect((await a.owner.client.get<Listed>(`/v0/orgs/${a.id}/scim/tokens`)).body.items[0]!.last_used_at).toBe(used);

    expect(await a.owner.client.patch(`/v0/orgs/${a.id}/scim/groups/${engineers.body.id}`, { role: 'admin' })).toMatchObject({ status: 200 });
    const listed = await a.owner.client.get(`/v0/orgs/${a.id}/scim/groups`);
    expect(listed).toMatchObject({
      status: 200,
      body: {
        items: [
          { id: admins.body.id, display_name: 'admins', role: null, member_count: 0, updated_at: expect.any(String) },
          { id: engineers.body.id, display_name: 'Engineers', role: 'admin', member_count: 1, updated_at: expect.any(String) },
        ],
        truncated: false,
      },
    });
    expect((listed.body as { items: unknown[] }).items).toHaveLength(2);
    expect(await b.owner.client.get(`/v0/orgs/${b.id}/scim/groups`)).toMatchObject({ status: 200, body: { items: [{ display_name: 'B only' }] } });
    expect((await b.owner.client.get<{ items: unknown[] }>(`/v0/orgs/${b.id}/scim/groups`)).body.items).toHaveLength(1);
    expect(await b.owner.client.get(`/v0/orgs/${a.id}/scim/groups`)).toMatchObject({ status: 404, body: { code: 'org:not_found' } });
    expect(await new ApiClient(stack.gatewayUrl).get(`/v0/orgs/${a.id}/scim/groups`)).toMatchObject({ status: 401 });
    expect(await a.owner.client.get(`/v0/orgs/not-an-id/scim/groups`)).toMatchObject({ status: 400 });
  });

  it('lets a member with scim:manage map a group only to a role whose permissions they hold themselves', async () => {
    const org = await scimOrg('map_owner');
    expect((await org.owner.client.post(`/v0/orgs/${org.id}/roles`, { name: 'provisioner', permissions: ['scim:manage'] })).status).toBe(201);
    const provisioner = await signedInAccount(stack, 'map_provisioner');
    expect((await org.owner.client.post(`/v0/orgs/${org.id}/invitations`, { email: provisioner.email, role: 'provisioner' })).status).toBe(201);
    const invitation = await mailedToken(stack, provisioner.email, 'invitations/accept');
    expect((await provisioner.client.post('/v0/invitations/accept', { token: invitation })).status).toBe(200);
    const group = await org.scim.call<{ id: string }>('POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'Everyone' });
    expect(group.status).toBe(201);

    // Whoever the directory puts in the group would become an admin: more than the provisioner may hand out.
    expect(await provisioner.client.patch(`/v0/orgs/${org.id}/scim/groups/${group.body.id}`, { role: 'admin' })).toMatchObject({ status: 403, body: { code: 'org:forbidden' } });
    expect(await provisioner.client.patch(`/v0/orgs/${org.id}/scim/groups/${group.body.id}`, { role: 'owner' })).toMatchObject({ status: 400 });
    expect(await provisioner.client.patch(`/v0/orgs/${org.id}/scim/groups/${group.body.id}`, { role: 'no-such-role' })).toMatchObject({ status: 404, body: { code: 'org:role_not_found' } });
    const listed = await org.owner.client.get<{ items: { id: string; role: string | null }[] }>(`/v0/orgs/${org.id}/scim/groups`);
    expect(listed.body.items).toEqual([expect.objectContaining({ id: group.body.id, role: null })]);

    expect(await provisioner.client.patch(`/v0/orgs/${org.id}/scim/groups/${group.body.id}`, { role: 'provisioner' })).toMatchObject({ status: 200 });
    expect(await org.owner.client.patch(`/v0/orgs/${org.id}/scim/groups/${group.body.id}`, { role: 'admin' })).toMatchObject({ status: 200 });
  });
});
