import { randomBytes } from 'node:crypto';
import { mailedToken, signedInAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { ISSUER, OidcBrowser, authorizationRequest, client, relyingParty } from '../support/oidc-relying-party';

/**
 * docs/oidc.md, "Organisations", end to end: a relying party (openid-client
 * 6) asks for the organisation a user signs in to, by id or slug, and
 * every token, userinfo answer and introspection says what the membership
 * is at that moment.
 */
let stack: E2eStack;
const WEB_SECRET = randomBytes(32).toString('base64url');
const REDIRECT = 'http://rp.localhost/callback';

beforeAll(async () => {
  const clients = [
    {
      client_id: 'web-app',
      client_secret: WEB_SECRET,
      client_name: 'Web App',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
    },
    { client_id: 'spa', client_name: 'First-party SPA', token_endpoint_auth_method: 'none', first_party: true, redirect_uris: [REDIRECT] },
    { client_id: 'tv', client_name: 'TV', token_endpoint_auth_method: 'none', grant_types: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'] },
  ];
  stack = await startE2eStack('oidcorgs', { PUBLIC_APP_URL: ISSUER, OIDC_CLIENTS: JSON.stringify(clients), RATE_LIMIT_IP_MAX: '100000' });
}, 90_000);

afterAll(async () => {
  await stack?.destroy();
});

type Account = Awaited<ReturnType<typeof signedInAccount>>;
interface Organization {
  readonly id: string;
  readonly slug: string;
}

/** An organisation `owner` creates: its owner. */
async function organizationOf(owner: Account, label: string): Promise<Organization> {
  const slug = `${label}-${randomBytes(3).toString('hex')}`;
  const created = await owner.client.post<Organization>('/v0/orgs', { name: `${label} Inc.`, slug });
  expect(created.status).toBe(201);
  return created.body;
}

/** Makes `account` a member of `organization` with `role`, as a colleague would: an invitation, accepted. */
async function join(owner: Account, organization: Organization, account: Account, role: string): Promise<void> {
  const invited = await owner.client.post(`/v0/orgs/${organization.id}/invitations`, { email: account.email, role });
  expect(invited.status).toBe(201);
  const token = await mailedToken(stack, account.email, 'invitations/accept');
  expect((await account.client.post('/v0/invitations/accept', { token })).status).toBe(200);
}

/** Signs in at the provider as a signed-in browser, allowing the consent page if there is one; answers where the browser landed. */
async function authorize(config: client.Configuration, account: Account, parameters: Record<string, string>) {
  const browser = new OidcBrowser(account.client, stack.gatewayUrl);
  const request = await authorizationRequest(config, parameters);
  let { url } = await browser.navigate(request.url);
  if (url.pathname.startsWith('/oidc/interaction/')) {
    const confirmed = await account.client.post<{ redirect_to: string }>(`/v0/oidc/interactions/${OidcBrowser.interactionUid(url)}/confirm`);
    expect(confirmed.status).toBe(200);
    ({ url } = await browser.navigate(confirmed.body.redirect_to));
  }
  expect(url.origin + url.pathname).toBe(REDIRECT);
  return { request, callback: url };
}

async function signIn(config: client.Configuration, account: Account, parameters: Record<string, string>) {
  const { request, callback } = await authorize(config, account, parameters);
  return request.exchange(callback);
}

const webApp = () => relyingParty(stack.gatewayUrl, 'web-app', { secret: WEB_SECRET });
const withOrganization = (organization: string, extra: Record<string, string> = {}) => ({
  scope: 'openid email organization offline_access',
  prompt: 'consent',
  organization,
  ...extra,
});

describe('the organization parameter and scope', () => {
  it('signs a member in to the organisation it names by slug, with its claims in the ID token, userinfo and introspection', async () => {
    const owner = await signedInAccount(stack, 'owner');
    const member = await signedInAccount(stack, 'member');
    const acme = await organizationOf(owner, 'acme');
    await join(owner, acme, member, 'member');
    const config = await webApp();

    const tokens = await signIn(config, member, withOrganization(acme.slug));
    const organizationClaims = { org_id: acme.id, org_slug: acme.slug, org_role: 'member', org_permissions: ['members:read'] };
    expect(tokens.claims()).toMatchObject({ sub: member.id, email: member.email, ...organizationClaims });
    expect(tokens.scope?.split(' ')).toContain('organization');
    expect(await client.fetchUserInfo(config, tokens.access_token, member.id)).toMatchObject({ sub: member.id, ...organizationClaims });
    expect(await client.tokenIntrospection(config, tokens.access_token)).toMatchObject({ active: true, sub: member.id, ...organizationClaims });
    expect(await client.tokenIntrospection(config, tokens.refresh_token!)).toMatchObject({ active: true, ...organizationClaims });
  });

  it('takes the organisation by id, and a first-party client gets it with no page', async () => {
    const owner = await signedInAccount(stack, 'spaowner');
    const acme = await organizationOf(owner, 'spa');
    const tokens = await signIn(await relyingParty(stack.gatewayUrl, 'spa'), owner, { scope: 'openid organization', organization: acme.id });
    expect(tokens.claims()).toMatchObject({ org_id: acme.id, org_slug: acme.slug, org_role: 'owner' });
    expect(tokens.claims()!.org_permissions).toEqual(expect.arrayContaining(['org:delete', 'members:manage', 'roles:manage']));
  });

  it('names every organisation of the user, with its role, for the scope organizations', async () => {
    const owner = await signedInAccount(stack, 'many');
    const member = await signedInAccount(stack, 'manymember');
    const first = await organizationOf(member, 'first');
    const second = await organizationOf(owner, 'second');
    await join(owner, second, member, 'admin');
    const config = await webApp();

    const tokens = await signIn(config, member, { scope: 'openid organizations' });
    const organizations = [
      { id: first.id, slug: first.slug, role: 'owner' },
      { id: second.id, slug: second.slug, role: 'admin' },
    ];
    expect(tokens.claims()!.organizations).toEqual(organizations);
    expect(tokens.claims()).not.toHaveProperty('org_id');
    expect((await client.fetchUserInfo(config, tokens.access_token, member.id)).organizations).toEqual(organizations);
    // Without the scope, no organisation claim at all.
    const plain = await signIn(config, member, { scope: 'openid email' });
    expect(Object.keys(plain.claims()!).filter((claim) => claim.startsWith('org'))).toEqual([]);
  });

  it('answers a non-member access_denied, in the same words whether the organisation exists or not, with prompt=none too', async () => {
    const owner = await signedInAccount(stack, 'closed');
    const outsider = await signedInAccount(stack, 'outsider');
    const closed = await organizationOf(owner, 'closed');
    const config = await webApp();
    // The outsider allowed the client the scope for an organisation of its own: no consent page from then on.
    const own = await organizationOf(outsider, 'own');
    await signIn(config, outsider, withOrganization(own.slug));
    const webAppGrant = async () =>
      (await outsider.client.get<{ items: { client_id: string }[] }>('/v0/oidc/grants')).body.items.find((grant) => grant.client_id === 'web-app');
    const allowed = await webAppGrant();
    expect(allowed).toBeDefined();

    const browser = new OidcBrowser(outsider.client, stack.gatewayUrl);
    const spa = await relyingParty(stack.gatewayUrl, 'spa');
    const answers = [];
    for (const organization of [closed.slug, closed.id, 'no-such-org', '00000000-0000-4000-8000-000000000000']) {
      for (const [relyingPartyConfig, prompt] of [
        [config, {}],
        [config, { prompt: 'none' }],
        [spa, { prompt: 'none' }],
      ] as const) {
        const request = await authorizationRequest(relyingPartyConfig, { scope: 'openid email organization', organization, ...prompt });
        const { url } = await browser.navigate(request.url);
        expect(url.origin + url.pathname).toBe(REDIRECT);
        answers.push({ error: url.searchParams.get('error'), description: url.searchParams.get('error_description') });
      }
    }
    expect(new Set(answers.map((answer) => JSON.stringify(answer)))).toEqual(
      new Set([JSON.stringify({ error: 'access_denied', description: 'the account is not a member of the requested organization' })]),
    );
    // Nothing more was allowed on the way.
    expect(await webAppGrant()).toEqual(allowed);
  });

  it('tells a client the user has not allowed nothing of the user’s memberships: prompt=none answers consent_required, member or not', async () => {
    const owner = await signedInAccount(stack, 'private');
    const member = await signedInAccount(stack, 'private_member');
    const acme = await organizationOf(owner, 'private');
    const other = await organizationOf(owner, 'elsewhere');
    await join(owner, acme, member, 'member');
    const config = await webApp();
    const browser = new OidcBrowser(member.client, stack.gatewayUrl);
    for (const organization of [acme.slug, other.slug, 'no-such-org']) {
      const { url } = await browser.navigate((await authorizationRequest(config, { scope: 'openid organization', organization, prompt: 'none' })).url);
      expect(url.searchParams.get('error')).toBe('consent_required');
    }
  });

  it('refuses a non-member who signs in on the way, once signed in, and extends no consent', async () => {
    const owner = await signedInAccount(stack, 'signin');
    const outsider = await signedInAccount(stack, 'latecomer');
    const closed = await organizationOf(owner, 'late');
    const config = await webApp();
    const session = outsider.client.sessionCookie;
    outsider.client.sessionCookie = undefined;
    const browser = new OidcBrowser(outsider.client, stack.gatewayUrl);
    const request = await authorizationRequest(config, withOrganization(closed.slug));
    const { url: page } = await browser.navigate(request.url);
    const uid = OidcBrowser.interactionUid(page);
    expect((await outsider.client.get(`/v0/oidc/interactions/${uid}`)).body).toMatchObject({ prompt: 'login' });

    outsider.client.sessionCookie = session;
    const confirmed = await outsider.client.post<{ redirect_to: string }>(`/v0/oidc/interactions/${uid}/confirm`);
    expect(confirmed.status).toBe(200);
    const { url } = await browser.navigate(confirmed.body.redirect_to);
    expect(url.searchParams.get('error')).toBe('access_denied');
    expect((await outsider.client.get<{ items: unknown[] }>('/v0/oidc/grants')).body.items).toEqual([]);
  });

  it('refuses the parameter without the scope, and the scope without the parameter', async () => {
    const account = await signedInAccount(stack, 'malformed');
    const acme = await organizationOf(account, 'malformed');
    const config = await webApp();
    const browser = new OidcBrowser(account.client, stack.gatewayUrl);
    const requests: Record<string, string>[] = [{ scope: 'openid email', organization: acme.slug }, { scope: 'openid organization' }];
    for (const parameters of requests) {
      const { url } = await browser.navigate((await authorizationRequest(config, parameters)).url);
      expect(url.searchParams.get('error')).toBe('invalid_request');
    }
    await expect(client.initiateDeviceAuthorization(await relyingParty(stack.gatewayUrl, 'tv'), { scope: 'openid organization' })).rejects.toMatchObject({
      error: 'invalid_request',
    });
  });
});

describe('a device signed in to an organisation', () => {
  /** A device asks, the account enters its code and allows it: answers the device's request and where the browser was sent. */
  async function allowDevice(account: Account, parameters: Record<string, string>) {
    const config = await relyingParty(stack.gatewayUrl, 'tv');
    const device = await client.initiateDeviceAuthorization(config, parameters);
    const verified = await account.client.post<{ uid: string }>('/v0/oidc/device/verify', { user_code: device.user_code });
    expect(verified.status).toBe(200);
    const confirmed = await account.client.post<{ redirect_to: string }>(`/v0/oidc/interactions/${verified.body.uid}/confirm`);
    expect(confirmed.status).toBe(200);
    return { config, device, redirectTo: confirmed.body.redirect_to };
  }

  it('gets the organisation’s claims for a member, read again at each refresh', async () => {
    const owner = await signedInAccount(stack, 'tvowner');
    const member = await signedInAccount(stack, 'tvmember');
    const acme = await organizationOf(owner, 'tv');
    await join(owner, acme, member, 'member');
    const { config, device, redirectTo } = await allowDevice(member, { scope: 'openid organization offline_access', organization: acme.slug });
    expect(redirectTo).toBe(`${ISSUER}/device?done=1`);
    const tokens = await client.pollDeviceAuthorizationGrant(config, { ...device, interval: 1 });
    expect(tokens.claims()).toMatchObject({ sub: member.id, org_id: acme.id, org_slug: acme.slug, org_role: 'member' });

    expect((await owner.client.delete(`/v0/orgs/${acme.id}/members/${member.id}`)).status).toBe(204);
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('answers the device of a non-member access_denied, whether the organisation exists or not', async () => {
    const owner = await signedInAccount(stack, 'tvclosed');
    const outsider = await signedInAccount(stack, 'tvoutsider');
    const closed = await organizationOf(owner, 'tvclosed');
    for (const organization of [closed.slug, 'no-such-org']) {
      const { config, device, redirectTo } = await allowDevice(outsider, { scope: 'openid organization', organization });
      expect(redirectTo).toBe(`${ISSUER}/device?denied=1`);
      await expect(client.pollDeviceAuthorizationGrant(config, { ...device, interval: 1 })).rejects.toMatchObject({ error: 'access_denied' });
    }
    expect((await outsider.client.get<{ items: unknown[] }>('/v0/oidc/grants')).body.items).toEqual([]);
  });
});

describe('a membership changes what the next token says, at once', () => {
  it('shows a role change in the next refresh, and ends the tokens of a removed member: refresh, userinfo and introspection', async () => {
    const owner = await signedInAccount(stack, 'boss');
    const member = await signedInAccount(stack, 'staff');
    const acme = await organizationOf(owner, 'changes');
    await join(owner, acme, member, 'member');
    const config = await webApp();
    const tokens = await signIn(config, member, withOrganization(acme.slug));
    expect(tokens.claims()).toMatchObject({ org_role: 'member' });

    expect((await owner.client.patch(`/v0/orgs/${acme.id}/members/${member.id}`, { role: 'admin' })).status).toBe(200);
    const promoted = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(promoted.claims()).toMatchObject({ org_id: acme.id, org_role: 'admin' });
    expect(promoted.claims()!.org_permissions).toContain('members:manage');
    expect(promoted.claims()!.org_permissions).not.toContain('org:delete');
    // The access token of before the change says what is true now too.
    expect(await client.fetchUserInfo(config, tokens.access_token, member.id)).toMatchObject({ org_role: 'admin' });

    expect((await owner.client.delete(`/v0/orgs/${acme.id}/members/${member.id}`)).status).toBe(204);
    await expect(client.refreshTokenGrant(config, promoted.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
      error_description: 'the account is no longer a member of the organization',
    });
    await expect(client.fetchUserInfo(config, promoted.access_token, member.id)).rejects.toMatchObject({ status: 401 });
    expect(await client.tokenIntrospection(config, promoted.access_token)).toEqual({ active: false });
    expect(await client.tokenIntrospection(config, promoted.refresh_token!)).toEqual({ active: false });

    // A new sign-in for that organisation is refused as for any non-member, with no page: the consent stands.
    const again = await authorizationRequest(config, { scope: 'openid email organization', organization: acme.slug });
    const { url } = await new OidcBrowser(member.client, stack.gatewayUrl).navigate(again.url);
    expect(url.searchParams.get('error')).toBe('access_denied');
  });

  it('refuses the code of a member removed between the authorization and the exchange', async () => {
    const owner = await signedInAccount(stack, 'quick');
    const member = await signedInAccount(stack, 'gone');
    const acme = await organizationOf(owner, 'quick');
    await join(owner, acme, member, 'member');
    const config = await webApp();
    const { request, callback } = await authorize(config, member, withOrganization(acme.id));
    expect((await owner.client.delete(`/v0/orgs/${acme.id}/members/${member.id}`)).status).toBe(204);
    await expect(request.exchange(callback)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('ends the tokens of an organisation that is deleted', async () => {
    const owner = await signedInAccount(stack, 'deleter');
    const acme = await organizationOf(owner, 'doomed');
    const config = await webApp();
    const tokens = await signIn(config, owner, withOrganization(acme.slug));
    expect((await owner.client.delete(`/v0/orgs/${acme.id}`)).status).toBe(204);
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });
});

it('lists the consent page’s scopes with the organisation ones', async () => {
  const owner = await signedInAccount(stack, 'consent');
  const acme = await organizationOf(owner, 'consent');
  const config = await webApp();
  const browser = new OidcBrowser(owner.client, stack.gatewayUrl);
  const { url } = await browser.navigate((await authorizationRequest(config, { scope: 'openid organization organizations', organization: acme.slug })).url);
  const interaction = await owner.client.get(`/v0/oidc/interactions/${OidcBrowser.interactionUid(url)}`);
  expect(interaction.body).toMatchObject({ prompt: 'consent', scopes: ['openid', 'organization', 'organizations'] });
});
