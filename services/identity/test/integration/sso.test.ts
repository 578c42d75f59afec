import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { adminV1, identityV1, orgsV1 } from '@latchkey/contracts';
import { createPool } from '@latchkey/db';
import { AppError } from '@latchkey/errors';
import type { Running } from '@latchkey/runtime';
import { createLogger } from '@latchkey/telemetry';
import {
  createTestDatabase,
  createTestServiceClient,
  startDnsServer,
  testNatsUrl,
  testRedisUrl,
  testRequestContext,
  uniqueName,
  type DnsServer,
  type TestDatabase,
  type TestServiceClient,
} from '@latchkey/test-kit';
import { loadIdentityConfig } from '../../src/config';
import { IDENTITY_SCHEMA, startIdentityService } from '../../src/identity-service';
import { migrate } from '../../src/migrate';

/**
 * Enterprise SSO's half in identity (docs/organisations.md, "Enterprise
 * SSO"), at its gRPC API: domains proved by DNS through a real DNS server,
 * the enforcement every other sign-in meets, and the account an SSO
 * sign-in provisions.
 */
const logger = createLogger({ service: 'identity-sso-test', level: 'silent' });
const { SIGN_IN_METHOD_PASSWORD, SIGN_IN_METHOD_PASSKEY, SIGN_IN_METHOD_PROVIDER } = identityV1.SignInMethod;
const { DOMAIN_STATUS_PENDING, DOMAIN_STATUS_VERIFIED } = orgsV1.DomainStatus;

let database: TestDatabase;
let pool: pg.Pool;
let service: Running;
let dns: DnsServer;
let orgs: TestServiceClient<typeof orgsV1.OrganizationsServiceService>;
let identity: TestServiceClient<typeof identityV1.IdentityServiceService>;
let admin: TestServiceClient<typeof adminV1.AdminServiceService>;

beforeAll(async () => {
  dns = await startDnsServer();
  database = await createTestDatabase('identity_sso');
  await migrate({ DATABASE_URL: database.url }, logger);
  pool = createPool({ connectionString: database.url, schema: IDENTITY_SCHEMA, max: 4, applicationName: 'identity-sso-test', onIdleError: () => undefined });
  const prefix = uniqueName('identity_sso');
  service = await startIdentityService(
    loadIdentityConfig({
      DATABASE_URL: database.url,
      NATS_URL: testNatsUrl(),
      NATS_SUBJECT_PREFIX: prefix,
      REDIS_URL: testRedisUrl(),
      REDIS_KEY_PREFIX: `${prefix}:`,
      GRPC_PORT: '0',
      ADMIN_GRPC_PORT: '0',
      METRICS_PORT: '0',
      DNS_SERVERS: dns.address,
    }),
    logger,
  );
  const address = `127.0.0.1:${String(service.readyFields?.grpc_port)}`;
  orgs = createTestServiceClient(orgsV1.OrganizationsServiceService, address);
  identity = createTestServiceClient(identityV1.IdentityServiceService, address);
  admin = createTestServiceClient(adminV1.AdminServiceService, `127.0.0.1:${String(service.readyFields?.admin_grpc_port)}`, undefined, {
    operator: 'sso-test operator',
  });
});

afterAll(async () => {
  orgs?.close();
  identity?.close();
  admin?.close();
  await service?.stop();
  await pool?.end();
  await database?.drop();
  await dns?.close();
});

async function errorOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  return (await errorOf(promise)).code;
}

/** A domain no other test uses. */
function freshDomain(): string {
  return `acme-${randomBytes(5).toString('hex')}.com`;
}

/** A verified account with a password, registered the usual way. */
async function newAccount(email = `${randomUUID()}@example.com`): Promise<identityV1.User> {
  const handle = `u_${randomBytes(6).toString('hex')}`;
  const { user } = await identity.registerUser({ handle, email, password: 'correct horse battery' });
  // Verified as the password was set: the owner's own password, as after a reset.
  await pool.query('UPDATE identity.users SET email_verified_at = password_set_at WHERE id = $1', [user!.id]);
  return user!;
}

/** An organisation owned by a new account. */
async function newOrganization(): Promise<{ owner: identityV1.User; organization: orgsV1.Organization }> {
  const owner = await newAccount();
  const slug = `org-${randomBytes(5).toString('hex')}`;
  const { organization } = await orgs.createOrganization({ actorUserId: owner.id, name: 'Acme', slug });
  return { owner, organization: organization! };
}

async function addMember(organizationId: string, role: string): Promise<identityV1.User> {
  const user = await newAccount();
  await pool.query(`INSERT INTO identity.org_memberships (organization_id, user_id, role, source) VALUES ($1, $2, $3, 'admin')`, [organizationId, user.id, role]);
  return user;
}

/** Claims and verifies a domain through DNS, as an owner would. */
async function verifiedDomain(owner: identityV1.User, organizationId: string, domain = freshDomain()): Promise<string> {
  const { domain: claimed } = await orgs.addDomain({ actorUserId: owner.id, organizationId, domain });
  dns.answer(claimed!.verificationName, { txt: [claimed!.verificationValue] });
  await orgs.verifyDomain({ actorUserId: owner.id, organizationId, domain });
  return domain;
}

/** An organisation with a verified domain that enforces SSO. */
async function enforcingOrganization(): Promise<{ owner: identityV1.User; organization: orgsV1.Organization; domain: string }> {
  const { owner, organization } = await newOrganization();
  const domain = await verifiedDomain(owner, organization.id);
  await orgs.updateOrganization({ actorUserId: owner.id, organizationId: organization.id, ssoEnforced: true });
  return { owner, organization, domain };
}

async function ledgerOf(userId: string): Promise<{ kind: string; reference: string; state: string }[]> {
  const { rows } = await pool.query<{ kind: string; reference: string; state: string }>(
    'SELECT kind, reference, state FROM identity.credentials WHERE user_id = $1 ORDER BY kind, reference',
    [userId],
  );
  return rows;
}

describe('domains', () => {
  it('claims a normalised domain, pending with its TXT record, and verifies it once DNS holds the value', async () => {
    const { owner, organization } = await newOrganization();
    const domain = freshDomain();
    const { domain: claimed } = await orgs.addDomain({ actorUserId: owner.id, organizationId: organization.id, domain: ` ${domain.toUpperCase()}. ` });
    expect(claimed).toMatchObject({ domain, status: DOMAIN_STATUS_PENDING, verificationName: `_latchkey-challenge.${domain}`, verifiedAt: undefined });
    expect(claimed!.verificationValue).toMatch(/^latchkey-domain-verification=[A-Za-z0-9_-]{32}$/);
    const again = await orgs.addDomain({ actorUserId: owner.id, organizationId: organization.id, domain });
    expect(again.domain!.verificationValue).toBe(claimed!.verificationValue);

    const call = { actorUserId: owner.id, organizationId: organization.id, domain };
    expect(await codeOf(orgs.verifyDomain(call))).toBe('org:domain_unverified');
    dns.answer(claimed!.verificationName, { txt: ['v=spf1 -all', 'latchkey-domain-verification=someone-else'] });
    expect(await codeOf(orgs.verifyDomain(call))).toBe('org:domain_unverified');
    dns.answer(claimed!.verificationName, { txt: ['v=spf1 -all', claimed!.verificationValue] });
    const { domain: verified } = await orgs.verifyDomain(call);
    expect(verified).toMatchObject({ domain, status: DOMAIN_STATUS_VERIFIED });
    expect(verified!.verifiedAt).toBeInstanceOf(Date);
    expect((await orgs.verifyDomain(call)).domain!.verifiedAt).toEqual(verified!.verifiedAt);

    expect((await orgs.listDomains({ actorUserId: owner.id, organizationId: organization.id })).domains.map((d) => [d.domain, d.status])).toEqual([
      [domain, DOMAIN_STATUS_VERIFIED],
    ]);
    expect((await orgs.getDomain(call)).domain!.status).toBe(DOMAIN_STATUS_VERIFIED);
  });

  it('takes an internationalised name in punycode, and refuses public suffixes, free-mail domains, addresses and garbage with field errors', async () => {
    const { owner, organization } = await newOrganization();
    const unicode = `bücher-${randomBytes(3).toString('hex')}.de`;
    const { domain } = await orgs.addDomain({ actorUserId: owner.id, organizationId: organization.id, domain: unicode });
    expect(domain!.domain).toMatch(/^xn--bcher-.*\.de$/);
    for (const bad of ['co.uk', 'com', 'github.io', 'gmail.com', 'outlook.com', 'mail.yahoo.com', '192.168.0.1', 'not a domain', 'someone@acme.com', '']) {
      const error = await errorOf(orgs.addDomain({ actorUserId: owner.id, organizationId: organization.id, domain: bad }));
      expect({ bad, code: error.code, field: error.fields[0]?.field }).toEqual({ bad, code: 'validation:invalid_input', field: 'domain' });
    }
  });

  it('treats a DNS server failure or silence as not verified, not as an error', async () => {
    const { owner, organization } = await newOrganization();
    const domain = freshDomain();
    const { domain: claimed } = await orgs.addDomain({ actorUserId: owner.id, organizationId: organization.id, domain });
    const call = { actorUserId: owner.id, organizationId: organization.id, domain };
    dns.answer(claimed!.verificationName, 'server_failure');
    expect(await codeOf(orgs.verifyDomain(call))).toBe('org:domain_unverified');
    dns.answer(claimed!.verificationName, 'no_answer');
    expect(await codeOf(orgs.verifyDomain(call, testRequestContext(15_000)))).toBe('org:domain_unverified');
    expect((await orgs.getDomain(call)).domain!.status).toBe(DOMAIN_STATUS_PENDING);
  }, 30_000);

  it('lets one organisation verify a domain: another may claim it while pending, not verify or claim it once verified', async () => {
    const first = await newOrganization();
    const second = await newOrganization();
    const domain = freshDomain();
    const { domain: secondClaim } = await orgs.addDomain({ actorUserId: second.owner.id, organizationId: second.organization.id, domain });
    await verifiedDomain(first.owner, first.organization.id, domain);
    dns.answer(secondClaim!.verificationName, { txt: [secondClaim!.verificationValue] });
    expect(await codeOf(orgs.verifyDomain({ actorUserId: second.owner.id, organizationId: second.organization.id, domain }))).toBe('org:domain_taken');
    const third = await newOrganization();
    expect(await codeOf(orgs.addDomain({ actorUserId: third.owner.id, organizationId: third.organization.id, domain }))).toBe('org:domain_taken');
  });

  it('lets one of two organisations verifying the same domain at once hold it', async () => {
    const contenders = await Promise.all([newOrganization(), newOrganization(), newOrganization()]);
    const domain = freshDomain();
    const name = `_latchkey-challenge.${domain}`;
    const values: string[] = [];
    for (const { owner, organization } of contenders) {
      values.push((await orgs.addDomain({ actorUserId: owner.id, organizationId: organization.id, domain })).domain!.verificationValue);
    }
    dns.answer(name, { txt: values });
    const outcomes = await Promise.all(
      contenders.map(({ owner, organization }) =>
        orgs.verifyDomain({ actorUserId: owner.id, organizationId: organization.id, domain }).then(
          () => 'verified',
          (error: unknown) => (error instanceof AppError ? error.code : String(error)),
        ),
      ),
    );
    expect(outcomes.sort()).toEqual(['org:domain_taken', 'org:domain_taken', 'verified']);
    const { rows } = await pool.query('SELECT organization_id FROM identity.org_domains WHERE domain = $1 AND verified_at IS NOT NULL', [domain]);
    expect(rows).toHaveLength(1);
  });

  it('needs sso:manage, and shows and changes nothing of another organisation', async () => {
    const { owner, organization } = await newOrganization();
    const domain = await verifiedDomain(owner, organization.id);
    const admin_ = await addMember(organization.id, 'admin');
    const member = await addMember(organization.id, 'member');
    expect((await orgs.listDomains({ actorUserId: admin_.id, organizationId: organization.id })).domains).toHaveLength(1);
    for (const call of [
      orgs.addDomain({ actorUserId: member.id, organizationId: organization.id, domain: freshDomain() }),
      orgs.listDomains({ actorUserId: member.id, organizationId: organization.id }),
      orgs.getDomain({ actorUserId: member.id, organizationId: organization.id, domain }),
      orgs.verifyDomain({ actorUserId: member.id, organizationId: organization.id, domain }),
      orgs.removeDomain({ actorUserId: member.id, organizationId: organization.id, domain }),
      orgs.updateOrganization({ actorUserId: member.id, organizationId: organization.id, ssoEnforced: true }),
    ]) {
      expect(await codeOf(call)).toBe('org:forbidden');
    }
    const other = await newOrganization();
    for (const call of [
      orgs.listDomains({ actorUserId: other.owner.id, organizationId: organization.id }),
      orgs.getDomain({ actorUserId: other.owner.id, organizationId: organization.id, domain }),
      orgs.removeDomain({ actorUserId: other.owner.id, organizationId: organization.id, domain }),
      orgs.updateOrganization({ actorUserId: other.owner.id, organizationId: organization.id, ssoEnforced: false }),
    ]) {
      expect(await codeOf(call)).toBe('org:not_found');
    }
    // Its own organisation never claimed the domain.
    expect(await codeOf(orgs.getDomain({ actorUserId: other.owner.id, organizationId: other.organization.id, domain }))).toBe('org:domain_not_found');
    expect(await codeOf(orgs.removeDomain({ actorUserId: other.owner.id, organizationId: other.organization.id, domain }))).toBe('org:domain_not_found');
    expect((await orgs.getDomain({ actorUserId: owner.id, organizationId: organization.id, domain })).domain!.status).toBe(DOMAIN_STATUS_VERIFIED);
  });
});

describe('enforcement', () => {
  it('is turned on only with a verified domain, shows on the organisation, and goes off with the last verified domain', async () => {
    const { owner, organization } = await newOrganization();
    const pending = freshDomain();
    await orgs.addDomain({ actorUserId: owner.id, organizationId: organization.id, domain: pending });
    expect(await codeOf(orgs.updateOrganization({ actorUserId: owner.id, organizationId: organization.id, ssoEnforced: true }))).toBe('org:domain_unverified');
    const domain = await verifiedDomain(owner, organization.id);
    const { organization: enforcing } = await orgs.updateOrganization({ actorUserId: owner.id, organizationId: organization.id, ssoEnforced: true });
    expect(enforcing).toMatchObject({ ssoEnforced: true, name: 'Acme' });
    await orgs.removeDomain({ actorUserId: owner.id, organizationId: organization.id, domain: pending });
    expect((await orgs.getOrganization({ actorUserId: owner.id, organization: organization.id })).organization!.ssoEnforced).toBe(true);
    await orgs.removeDomain({ actorUserId: owner.id, organizationId: organization.id, domain });
    expect((await orgs.getOrganization({ actorUserId: owner.id, organization: organization.id })).organization!.ssoEnforced).toBe(false);
  });

  it('refuses a password, a passkey and a provider sign-in of an account in an enforcing domain with the organisation’s slug, and sends no reset mail', async () => {
    const { organization, domain } = await enforcingOrganization();
    const user = await newAccount(`jane@${domain}`);
    for (const attempt of [
      identity.authenticatePassword({ email: `Jane@${domain.toUpperCase()}`, password: 'correct horse battery' }),
      identity.authenticatePassword({ email: `nobody@${domain}`, password: 'whatever it is' }),
      identity.getUser({ userId: user.id, signIn: SIGN_IN_METHOD_PASSKEY }),
      identity.getUser({ userId: user.id, signIn: SIGN_IN_METHOD_PROVIDER }),
      identity.getUserByEmail({ email: user.email, signIn: SIGN_IN_METHOD_PROVIDER }),
      identity.getUserByEmail({ email: `newcomer@${domain}`, signIn: SIGN_IN_METHOD_PROVIDER }),
      identity.createVerifiedUser({ handle: `n_${randomBytes(4).toString('hex')}`, email: `newcomer@${domain}`, signIn: SIGN_IN_METHOD_PROVIDER }),
    ]) {
      const error = await errorOf(attempt);
      expect({ code: error.code, orgSlug: error.orgSlug }).toEqual({ code: 'auth:sso_required', orgSlug: organization.slug });
    }
    await identity.requestPasswordReset({ email: user.email });
    const { rows } = await pool.query(`SELECT FROM identity.one_time_tokens WHERE user_id = $1 AND purpose = 'reset_password'`, [user.id]);
    expect(rows).toHaveLength(0);
    // Not a sign-in: the account is still there for sessions, tokens and the account page.
    expect((await identity.getUser({ userId: user.id })).user!.id).toBe(user.id);
    expect((await identity.getUserByEmail({ email: user.email })).user!.id).toBe(user.id);
  });

  it('leaves other domains, pending domains and an organisation that does not enforce alone, and applies at once both ways', async () => {
    const { owner, organization, domain } = await enforcingOrganization();
    const pending = freshDomain();
    await orgs.addDomain({ actorUserId: owner.id, organizationId: organization.id, domain: pending });
    const outsider = await newAccount(`sam@${pending}`);
    expect((await identity.authenticatePassword({ email: outsider.email, password: 'correct horse battery' })).user!.id).toBe(outsider.id);
    expect((await identity.getUser({ userId: outsider.id, signIn: SIGN_IN_METHOD_PASSKEY })).user!.id).toBe(outsider.id);

    const insider = await newAccount(`kim@${domain}`);
    expect(await codeOf(identity.authenticatePassword({ email: insider.email, password: 'correct horse battery' }))).toBe('auth:sso_required');
    await orgs.updateOrganization({ actorUserId: owner.id, organizationId: organization.id, ssoEnforced: false });
    expect((await identity.authenticatePassword({ email: insider.email, password: 'correct horse battery' })).user!.id).toBe(insider.id);
    await identity.requestPasswordReset({ email: insider.email });
    const { rows } = await pool.query(`SELECT FROM identity.one_time_tokens WHERE user_id = $1 AND purpose = 'reset_password'`, [insider.id]);
    expect(rows).toHaveLength(1);
    await orgs.updateOrganization({ actorUserId: owner.id, organizationId: organization.id, ssoEnforced: true });
    expect(await codeOf(identity.getUser({ userId: insider.id, signIn: SIGN_IN_METHOD_PASSWORD }))).toBe('auth:sso_required');
  });

  it('is turned off by an operator, recorded, as the break-glass of a locked-out organisation', async () => {
    const { organization, domain } = await enforcingOrganization();
    const user = await newAccount(`lee@${domain}`);
    const { organization: changed } = await admin.setOrganizationSsoEnforced({ organizationId: organization.id, ssoEnforced: false });
    expect(changed).toMatchObject({ id: organization.id, ssoEnforced: false });
    expect((await identity.authenticatePassword({ email: user.email, password: 'correct horse battery' })).user!.id).toBe(user.id);
    const { rows } = await pool.query(`SELECT operator FROM identity.admin_audit_log WHERE action = 'set_organization_sso_enforced' AND organization_id = $1`, [
      organization.id,
    ]);
    expect(rows).toEqual([{ operator: 'sso-test operator' }]);
    expect((await admin.setOrganizationSsoEnforced({ organizationId: organization.id, ssoEnforced: true })).organization!.ssoEnforced).toBe(true);
    const bare = await newOrganization();
    expect(await codeOf(admin.setOrganizationSsoEnforced({ organizationId: bare.organization.id, ssoEnforced: true }))).toBe('org:domain_unverified');
    expect(await codeOf(admin.setOrganizationSsoEnforced({ organizationId: randomUUID(), ssoEnforced: false }))).toBe('org:not_found');
  });
});

describe('home-realm discovery (FindSsoOrganization)', () => {
  it('finds the organisation of a verified domain or of a slug, and nothing for a pending domain or an unknown slug', async () => {
    const { owner, organization, domain } = await enforcingOrganization();
    const pending = freshDomain();
    await orgs.addDomain({ actorUserId: owner.id, organizationId: organization.id, domain: pending });
    expect(await identity.findSsoOrganization({ email: `Jo@${domain.toUpperCase()}`, organizationSlug: '' })).toEqual({
      organizationId: organization.id,
      organizationSlug: organization.slug,
      ssoEnforced: true,
      emailDomainVerified: true,
    });
    expect(await identity.findSsoOrganization({ email: `jo@${pending}`, organizationSlug: organization.slug })).toMatchObject({
      organizationId: organization.id,
      emailDomainVerified: false,
    });
    expect((await identity.findSsoOrganization({ email: '', organizationSlug: organization.slug })).emailDomainVerified).toBe(false);
    expect(await codeOf(identity.findSsoOrganization({ email: `jo@${pending}`, organizationSlug: '' }))).toBe('org:not_found');
    expect(await codeOf(identity.findSsoOrganization({ email: '', organizationSlug: 'no-such-organisation' }))).toBe('org:not_found');
    expect(await codeOf(identity.findSsoOrganization({ email: '', organizationSlug: '' }))).toBe('validation:invalid_input');
    expect(await codeOf(identity.findSsoOrganization({ email: 'not an email', organizationSlug: '' }))).toBe('validation:invalid_input');
  });
});

describe('just-in-time accounts (ProvisionSsoMember)', () => {
  function provision(organizationId: string, email: string, overrides: Partial<identityV1.ProvisionSsoMemberRequest> = {}) {
    return identity.provisionSsoMember({
      organizationId,
      connectionId: overrides.connectionId ?? randomUUID(),
      email,
      emailVerified: true,
      displayName: 'Jo Doe',
      role: 'member',
      roleFromGroups: false,
      ...overrides,
    });
  }

  it('creates a verified account without a password, with a handle from the email, a member through sso, its connection a way in', async () => {
    const { owner, organization, domain } = await enforcingOrganization();
    const connectionId = randomUUID();
    const first = await provision(organization.id, `Jo.Doe@${domain}`, { connectionId });
    expect(first.created).toBe(true);
    expect(first.user).toMatchObject({ email: `jo.doe@${domain}`, handle: 'jo_doe', hasPassword: false });
    expect(first.user!.emailVerifiedAt).toBeInstanceOf(Date);
    expect(first.member).toMatchObject({ userId: first.user!.id, role: 'member', source: orgsV1.MembershipSource.MEMBERSHIP_SOURCE_SSO });
    expect(await ledgerOf(first.user!.id)).toEqual([{ kind: 'sso', reference: connectionId, state: 'active' }]);

    const twin = await provision(organization.id, `jo_doe@${domain}`, { connectionId });
    expect(twin.created).toBe(true);
    expect(twin.user!.handle).toMatch(/^jo_doe_\d+$/);

    const again = await provision(organization.id, `jo.doe@${domain}`, { connectionId });
    expect({ created: again.created, id: again.user!.id }).toEqual({ created: false, id: first.user!.id });
    expect(await ledgerOf(first.user!.id)).toEqual([{ kind: 'sso', reference: connectionId, state: 'active' }]);
    const { members } = await orgs.listMembers({ actorUserId: owner.id, organizationId: organization.id, limit: 0, cursor: '' });
    expect(members.filter((m) => m.source === orgsV1.MembershipSource.MEMBERSHIP_SOURCE_SSO).map((m) => m.handle).sort()).toEqual(
      [first.user!.handle, twin.user!.handle].sort(),
    );
  });

  it('links an existing account: an unverified address counts verified and a password chosen before it was proved is dropped', async () => {
    const { organization, domain } = await enforcingOrganization();
    const verified = await newAccount(`ana@${domain}`);
    const linked = await provision(organization.id, verified.email);
    expect({ created: linked.created, id: linked.user!.id, hasPassword: linked.user!.hasPassword }).toEqual({ created: false, id: verified.id, hasPassword: true });

    const handle = `sq_${randomBytes(4).toString('hex')}`;
    const { user: squatter } = await identity.registerUser({ handle, email: `bo@${domain}`, password: 'squatters password' });
    const taken = await provision(organization.id, `bo@${domain}`);
    expect(taken.user).toMatchObject({ id: squatter!.id, hasPassword: false });
    expect(taken.user!.emailVerifiedAt).toBeInstanceOf(Date);
    expect(taken.user!.sessionEpoch).toBeGreaterThan(squatter!.sessionEpoch);
    expect((await ledgerOf(squatter!.id)).map((row) => row.kind)).toEqual(['sso']);
    const { rows } = await pool.query<{ payload: { template: string; provider: string } }>(
      `SELECT payload FROM identity.outbox WHERE payload->>'template' = 'password_dropped' AND payload->>'to' = $1`,
      [`bo@${domain}`],
    );
    expect(rows.map((row) => row.payload.provider)).toEqual(['sso']);
  });

  it('keeps an existing member’s role against a default role, takes a role from groups, and never demotes the last owner', async () => {
    const { owner, organization, domain } = await enforcingOrganization();
    const first = await provision(organization.id, `max@${domain}`);
    await orgs.changeMemberRole({ actorUserId: owner.id, organizationId: organization.id, userId: first.user!.id, role: 'admin' });
    expect((await provision(organization.id, `max@${domain}`, { role: 'member' })).member!.role).toBe('admin');
    expect((await provision(organization.id, `max@${domain}`, { role: 'member', roleFromGroups: true })).member!.role).toBe('member');
    await pool.query('UPDATE identity.users SET email = $2 WHERE id = $1', [owner.id, `owner@${domain}`]);
    expect((await provision(organization.id, `owner@${domain}`, { role: 'member', roleFromGroups: true })).member!.role).toBe('owner');
    expect(await codeOf(provision(organization.id, `new@${domain}`, { role: 'nonexistent' }))).toBe('org:role_not_found');
  });

  it('refuses an email outside the organisation’s verified domains, one the IdP does not vouch for, a disabled account and another organisation', async () => {
    const { owner, organization, domain } = await enforcingOrganization();
    const pending = freshDomain();
    await orgs.addDomain({ actorUserId: owner.id, organizationId: organization.id, domain: pending });
    const other = await enforcingOrganization();
    expect(await codeOf(provision(organization.id, `x@${pending}`))).toBe('sso:domain_mismatch');
    expect(await codeOf(provision(organization.id, `x@${other.domain}`))).toBe('sso:domain_mismatch');
    expect(await codeOf(provision(other.organization.id, `x@${domain}`))).toBe('sso:domain_mismatch');
    expect(await codeOf(provision(organization.id, `x@${domain}`, { emailVerified: false }))).toBe('sso:response_invalid');
    expect(await codeOf(provision(randomUUID(), `x@${domain}`))).toBe('org:not_found');
    expect(await codeOf(provision(organization.id, 'not an email'))).toBe('validation:invalid_input');
    expect(await codeOf(provision(organization.id, `x@${domain}`, { connectionId: 'nope' }))).toBe('validation:invalid_input');
    const disabled = await newAccount(`off@${domain}`);
    await pool.query('UPDATE identity.users SET disabled_at = now() WHERE id = $1', [disabled.id]);
    expect(await codeOf(provision(organization.id, disabled.email))).toBe('auth:account_disabled');
    const { rows } = await pool.query('SELECT FROM identity.users WHERE email = $1', [`x@${domain}`]);
    expect(rows).toHaveLength(0);
  });

  it('makes one account of two first sign-ins at once', async () => {
    const { organization, domain } = await enforcingOrganization();
    const email = `twice@${domain}`;
    const answers = await Promise.all([provision(organization.id, email), provision(organization.id, email), provision(organization.id, email)]);
    expect(new Set(answers.map((answer) => answer.user!.id)).size).toBe(1);
    expect(answers.filter((answer) => answer.created)).toHaveLength(1);
  });

  it('drops a deleted connection from the ledger of every account that signed in through it', async () => {
    const { organization, domain } = await enforcingOrganization();
    const connectionId = randomUUID();
    const keptConnection = randomUUID();
    const one = await provision(organization.id, `one@${domain}`, { connectionId });
    const two = await provision(organization.id, `two@${domain}`, { connectionId });
    await provision(organization.id, `two@${domain}`, { connectionId: keptConnection });
    expect(await identity.dropSsoConnection({ organizationId: organization.id, connectionId })).toEqual({ removed: 2 });
    expect(await ledgerOf(one.user!.id)).toEqual([]);
    expect(await ledgerOf(two.user!.id)).toEqual([{ kind: 'sso', reference: keptConnection, state: 'active' }]);
    expect(await identity.dropSsoConnection({ organizationId: organization.id, connectionId })).toEqual({ removed: 0 });
    expect(await codeOf(identity.dropSsoConnection({ organizationId: organization.id, connectionId: 'nope' }))).toBe('validation:invalid_input');
  });
});
