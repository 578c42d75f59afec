import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { identityV1, orgsV1 } from '@latchkey/contracts';
import { createPool } from '@latchkey/db';
import { AppError } from '@latchkey/errors';
import type { Running } from '@latchkey/runtime';
import { createLogger } from '@latchkey/telemetry';
import { hashOpaqueToken } from '@latchkey/opaque-token';
import {
  createTestDatabase,
  createTestServiceClient,
  testNatsUrl,
  testRedisUrl,
  uniqueName,
  type TestDatabase,
  type TestServiceClient,
} from '@latchkey/test-kit';
import { loadIdentityConfig } from '../../src/config';
import { IDENTITY_SCHEMA, startIdentityService } from '../../src/identity-service';
import { migrate } from '../../src/migrate';

/**
 * docs/organisations.md, at identity's gRPC API (orgs.v1): the rules an
 * organisation keeps, whoever calls, and under concurrency.
 */
const logger = createLogger({ service: 'identity-orgs-test', level: 'silent' });
const MAX_OWNED = 3;

let database: TestDatabase;
let pool: pg.Pool;
let service: Running;
let orgs: TestServiceClient<typeof orgsV1.OrganizationsServiceService>;
let access: TestServiceClient<typeof orgsV1.OrganizationAccessServiceService>;
let identity: TestServiceClient<typeof identityV1.IdentityServiceService>;

beforeAll(async () => {
  database = await createTestDatabase('identity_orgs');
  await migrate({ DATABASE_URL: database.url }, logger);
  pool = createPool({ connectionString: database.url, schema: IDENTITY_SCHEMA, max: 4, applicationName: 'identity-orgs-test', onIdleError: () => undefined });
  const prefix = uniqueName('identity_orgs');
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
      ORG_MAX_PER_USER: String(MAX_OWNED),
    }),
    logger,
  );
  orgs = createTestServiceClient(orgsV1.OrganizationsServiceService, `127.0.0.1:${String(service.readyFields?.grpc_port)}`);
  access = createTestServiceClient(orgsV1.OrganizationAccessServiceService, `127.0.0.1:${String(service.readyFields?.admin_grpc_port)}`);
  identity = createTestServiceClient(identityV1.IdentityServiceService, `127.0.0.1:${String(service.readyFields?.grpc_port)}`);
});

afterAll(async () => {
  orgs?.close();
  access?.close();
  identity?.close();
  await service?.stop();
  await pool?.end();
  await database?.drop();
});

/** An account; verified unless asked otherwise. */
async function newUser(options: { verified?: boolean; email?: string } = {}): Promise<{ id: string; email: string }> {
  const id = randomUUID();
  const email = options.email ?? `${id}@example.com`;
  await pool.query(`INSERT INTO identity.users (id, handle, email, password_hash, email_verified_at) VALUES ($1, $2, $3, NULL, $4)`, [
    id,
    `u_${id.slice(0, 8)}`,
    email,
    options.verified === false ? null : new Date(),
  ]);
  return { id, email };
}

const slug = () => `acme-${randomBytes(4).toString('hex')}`;

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error.code;
}

/** An organisation owned by a new account. */
async function newOrganization() {
  const owner = await newUser();
  const { organization } = await orgs.createOrganization({ actorUserId: owner.id, name: 'Acme', slug: slug() });
  return { owner, organization: organization! };
}

/** Adds a member directly, as an accepted invitation would. */
async function addMember(organizationId: string, role: string): Promise<{ id: string; email: string }> {
  const user = await newUser();
  await pool.query(`INSERT INTO identity.org_memberships (organization_id, user_id, role, source) VALUES ($1, $2, $3, 'admin')`, [organizationId, user.id, role]);
  return user;
}

async function ownersOf(organizationId: string): Promise<number> {
  const { rows } = await pool.query<{ owners: number }>(`SELECT count(*)::int AS owners FROM identity.org_memberships WHERE organization_id = $1 AND role = 'owner'`, [
    organizationId,
  ]);
  return rows[0]!.owners;
}

/** The invitation's token from the mail job its creation queued in the outbox. */
async function mailedToken(email: string): Promise<string> {
  const { rows } = await pool.query<{ payload: { to: string; token: string; template: string } }>(
    `SELECT payload FROM identity.outbox WHERE payload->>'template' = 'org_invitation' AND payload->>'to' = $1 ORDER BY id DESC LIMIT 1`,
    [email],
  );
  if (!rows[0]) throw new Error(`no invitation mail to ${email}`);
  return rows[0].payload.token;
}

describe('organisations', () => {
  it('makes the creator the owner with every permission, and shows the organisation to members only, by id or slug', async () => {
    const owner = await newUser();
    const name = slug();
    const { organization } = await orgs.createOrganization({ actorUserId: owner.id, name: '  Acme Inc.  ', slug: name });
    expect(organization).toMatchObject({ slug: name, name: 'Acme Inc.', role: 'owner', permissions: expect.arrayContaining(['org:delete', 'members:manage', 'audit:read']) });
    expect((await orgs.getOrganization({ actorUserId: owner.id, organization: name })).organization?.id).toBe(organization!.id);
    const stranger = await newUser();
    expect(await codeOf(orgs.getOrganization({ actorUserId: stranger.id, organization: organization!.id }))).toBe('org:not_found');
    expect(await codeOf(orgs.getOrganization({ actorUserId: stranger.id, organization: randomUUID() }))).toBe('org:not_found');
    expect((await orgs.listOrganizations({ actorUserId: owner.id })).organizations.map((org) => org.id)).toEqual([organization!.id]);
  });

  it('refuses a taken or malformed slug, an unverified creator, and more owned organisations than the limit', async () => {
    const { owner, organization } = await newOrganization();
    expect(await codeOf(orgs.createOrganization({ actorUserId: (await newUser()).id, name: 'Copy', slug: organization.slug }))).toBe('org:slug_taken');
    for (const bad of ['ab', '-acme', 'acme-', 'Acme', 'a'.repeat(49), 'ac me']) {
      expect(await codeOf(orgs.createOrganization({ actorUserId: owner.id, name: 'Bad', slug: bad }))).toBe('validation:invalid_input');
    }
    expect(await codeOf(orgs.createOrganization({ actorUserId: (await newUser({ verified: false })).id, name: 'New', slug: slug() }))).toBe('auth:email_not_verified');
    for (let owned = 1; owned < MAX_OWNED; owned += 1) await orgs.createOrganization({ actorUserId: owner.id, name: 'More', slug: slug() });
    expect(await codeOf(orgs.createOrganization({ actorUserId: owner.id, name: 'One more', slug: slug() }))).toBe('org:limit_reached');
  });

  it('lets only a member with org:update rename it, and only an owner delete it', async () => {
    const { owner, organization } = await newOrganization();
    const member = await addMember(organization.id, 'member');
    const admin = await addMember(organization.id, 'admin');
    expect(await codeOf(orgs.updateOrganization({ actorUserId: member.id, organizationId: organization.id, name: 'Mine' }))).toBe('org:forbidden');
    const renamed = await orgs.updateOrganization({ actorUserId: admin.id, organizationId: organization.id, name: 'Acme Ltd', slug: slug() });
    expect(renamed.organization).toMatchObject({ name: 'Acme Ltd', role: 'admin' });
    expect(await codeOf(orgs.deleteOrganization({ actorUserId: admin.id, organizationId: organization.id }))).toBe('org:forbidden');
    await orgs.deleteOrganization({ actorUserId: owner.id, organizationId: organization.id });
    expect(await codeOf(orgs.getOrganization({ actorUserId: owner.id, organization: organization.id }))).toBe('org:not_found');
  });
});

describe('roles', () => {
  it('keeps custom roles, refuses to change built-in ones, and deletes a role only when nobody holds it', async () => {
    const { owner, organization } = await newOrganization();
    const role = await orgs.createRole({ actorUserId: owner.id, organizationId: organization.id, name: 'billing', permissions: ['invoices:*', 'members:read', 'invoices:*'] });
    expect(role.role).toEqual({ name: 'billing', permissions: ['invoices:*', 'members:read'], builtIn: false });
    expect(await codeOf(orgs.createRole({ actorUserId: owner.id, organizationId: organization.id, name: 'billing', permissions: ['a:b'] }))).toBe('org:role_exists');
    expect(await codeOf(orgs.createRole({ actorUserId: owner.id, organizationId: organization.id, name: 'admin', permissions: ['a:b'] }))).toBe('validation:invalid_input');
    expect(await codeOf(orgs.createRole({ actorUserId: owner.id, organizationId: organization.id, name: 'x', permissions: ['Not A Permission'] }))).toBe('validation:invalid_input');
    expect(await codeOf(orgs.updateRole({ actorUserId: owner.id, organizationId: organization.id, name: 'member', permissions: ['a:b'] }))).toBe('validation:invalid_input');
    const listed = await orgs.listRoles({ actorUserId: owner.id, organizationId: organization.id });
    expect(listed.roles.map((each) => [each.name, each.builtIn])).toEqual([
      ['owner', true],
      ['admin', true],
      ['member', true],
      ['billing', false],
    ]);

    const clerk = await addMember(organization.id, 'billing');
    expect(await codeOf(orgs.deleteRole({ actorUserId: owner.id, organizationId: organization.id, name: 'billing' }))).toBe('org:role_in_use');
    await orgs.changeMemberRole({ actorUserId: owner.id, organizationId: organization.id, userId: clerk.id, role: 'member' });
    await orgs.createInvitation({ actorUserId: owner.id, organizationId: organization.id, email: `${randomUUID()}@example.com`, role: 'billing' });
    expect(await codeOf(orgs.deleteRole({ actorUserId: owner.id, organizationId: organization.id, name: 'billing' }))).toBe('org:role_in_use');
  });

  it('lets nobody make or hand out more of Latchkey’s permissions than they hold: an admin cannot make or give a role that deletes the organisation, nor grant owner', async () => {
    const { owner, organization } = await newOrganization();
    const admin = await addMember(organization.id, 'admin');
    const member = await addMember(organization.id, 'member');
    for (const permissions of [['org:delete'], ['org:*'], ['members:read', 'org:delete']]) {
      expect(await codeOf(orgs.createRole({ actorUserId: admin.id, organizationId: organization.id, name: 'deleter', permissions }))).toBe('org:forbidden');
    }
    // The applications' own permissions, and Latchkey's that it holds, an admin hands out.
    await orgs.createRole({ actorUserId: admin.id, organizationId: organization.id, name: 'support', permissions: ['members:manage', 'tickets:*'] });
    await orgs.changeMemberRole({ actorUserId: admin.id, organizationId: organization.id, userId: member.id, role: 'support' });
    expect(await codeOf(orgs.changeMemberRole({ actorUserId: admin.id, organizationId: organization.id, userId: member.id, role: 'owner' }))).toBe('org:forbidden');
    await orgs.createRole({ actorUserId: owner.id, organizationId: organization.id, name: 'deleter', permissions: ['org:delete'] });
    expect(await codeOf(orgs.changeMemberRole({ actorUserId: admin.id, organizationId: organization.id, userId: member.id, role: 'deleter' }))).toBe('org:forbidden');
    expect(await codeOf(orgs.updateRole({ actorUserId: admin.id, organizationId: organization.id, name: 'support', permissions: ['org:delete'] }))).toBe('org:forbidden');
    const plain = await addMember(organization.id, 'member');
    expect(await codeOf(orgs.createRole({ actorUserId: plain.id, organizationId: organization.id, name: 'mine', permissions: ['members:read'] }))).toBe('org:forbidden');
  });
});

describe('limits', () => {
  it('keeps at most 100 custom roles per organisation', async () => {
    const { owner, organization } = await newOrganization();
    for (let role = 0; role < 100; role += 1) {
      await orgs.createRole({ actorUserId: owner.id, organizationId: organization.id, name: `role-${role}`, permissions: ['things:read'] });
    }
    expect(await codeOf(orgs.createRole({ actorUserId: owner.id, organizationId: organization.id, name: 'one-more', permissions: ['things:read'] }))).toBe('org:limit_reached');
  });
});

describe('members and the last owner', () => {
  it('keeps at least one owner: the last cannot be demoted, removed or leave, and only owners touch owners', async () => {
    const { owner, organization } = await newOrganization();
    const admin = await addMember(organization.id, 'admin');
    expect(await codeOf(orgs.changeMemberRole({ actorUserId: owner.id, organizationId: organization.id, userId: owner.id, role: 'admin' }))).toBe('org:last_owner');
    expect(await codeOf(orgs.removeMember({ actorUserId: owner.id, organizationId: organization.id, userId: owner.id }))).toBe('org:last_owner');
    expect(await codeOf(orgs.removeMember({ actorUserId: admin.id, organizationId: organization.id, userId: owner.id }))).toBe('org:forbidden');
    expect(await codeOf(orgs.changeMemberRole({ actorUserId: admin.id, organizationId: organization.id, userId: owner.id, role: 'member' }))).toBe('org:forbidden');
    expect(await codeOf(orgs.removeMember({ actorUserId: owner.id, organizationId: organization.id, userId: randomUUID() }))).toBe('org:member_not_found');
    // The admin leaves on its own.
    await orgs.removeMember({ actorUserId: admin.id, organizationId: organization.id, userId: admin.id });
    expect(await codeOf(orgs.getOrganization({ actorUserId: admin.id, organization: organization.id }))).toBe('org:not_found');
  });

  it('leaves one owner, never none, when two owners demote each other at once', async () => {
    for (let round = 0; round < 10; round += 1) {
      const { owner, organization } = await newOrganization();
      const second = await addMember(organization.id, 'owner');
      const outcomes = await Promise.allSettled([
        orgs.changeMemberRole({ actorUserId: owner.id, organizationId: organization.id, userId: second.id, role: 'member' }),
        orgs.changeMemberRole({ actorUserId: second.id, organizationId: organization.id, userId: owner.id, role: 'member' }),
      ]);
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      const refused = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
      // The loser either found itself no longer an owner (org:forbidden) or found the other the last owner.
      expect(['org:last_owner', 'org:forbidden']).toContain((refused.reason as AppError).code);
      expect(await ownersOf(organization.id)).toBe(1);
    }
  });

  it('refuses, at commit, a change that would leave an organisation without an owner, whatever makes it', async () => {
    const { owner, organization } = await newOrganization();
    await addMember(organization.id, 'member');
    await expect(pool.query(`DELETE FROM identity.org_memberships WHERE organization_id = $1 AND user_id = $2`, [organization.id, owner.id])).rejects.toMatchObject({ code: 'LK001' });
    expect(await ownersOf(organization.id)).toBe(1);
  });

  it('pages through thousands of members in the order they joined, each once', async () => {
    const { owner, organization } = await newOrganization();
    await pool.query(
      `WITH added AS (
         INSERT INTO identity.users (id, handle, email, email_verified_at)
         SELECT gen_random_uuid(), 'm_' || substr(md5(random()::text), 1, 12) || n, 'm' || n || '.' || $2 || '@example.com', now()
         FROM generate_series(1, 2500) AS n RETURNING id)
       INSERT INTO identity.org_memberships (organization_id, user_id, role, source, joined_at)
       SELECT $1, id, 'member', 'scim', date_trunc('milliseconds', now() - random() * interval '10 days') FROM added`,
      [organization.id, randomBytes(3).toString('hex')],
    );
    const seen = new Set<string>();
    let cursor = '';
    let previous = 0;
    do {
      const page = await orgs.listMembers({ actorUserId: owner.id, organizationId: organization.id, limit: 100, cursor });
      for (const member of page.members) {
        expect(seen.has(member.userId)).toBe(false);
        seen.add(member.userId);
        expect(member.joinedAt!.getTime()).toBeGreaterThanOrEqual(previous);
        previous = member.joinedAt!.getTime();
      }
      cursor = page.nextCursor;
    } while (cursor !== '');
    expect(seen.size).toBe(2501);
    expect(await codeOf(orgs.listMembers({ actorUserId: owner.id, organizationId: organization.id, limit: 10, cursor: 'bogus' }))).toBe('validation:invalid_input');
  });
});

describe('invitations', () => {
  it('mails a link, stores only its hash, and lets the invited verified address alone accept it, once', async () => {
    const { owner, organization } = await newOrganization();
    const invited = await newUser({ email: `Invited.${randomUUID()}@Example.com`.toLowerCase() });
    const made = await orgs.createInvitation({ actorUserId: owner.id, organizationId: organization.id, email: invited.email.toUpperCase(), role: 'member' });
    expect(made.invitation).toMatchObject({ email: invited.email, role: 'member', status: orgsV1.InvitationStatus.INVITATION_STATUS_PENDING, invitedBy: owner.id });
    const token = await mailedToken(invited.email);
    const { rows } = await pool.query<{ token_hash: string }>('SELECT token_hash FROM identity.org_invitations WHERE id = $1', [made.invitation!.id]);
    expect(rows[0]!.token_hash).toBe(hashOpaqueToken(token));
    expect(await codeOf(orgs.createInvitation({ actorUserId: owner.id, organizationId: organization.id, email: invited.email, role: 'member' }))).toBe('org:invitation_pending');

    expect(await orgs.lookupInvitation({ token })).toMatchObject({ organizationId: organization.id, organizationName: 'Acme', email: invited.email, role: 'member' });
    const other = await newUser();
    expect(await codeOf(orgs.acceptInvitation({ token, userId: other.id }))).toBe('org:invitation_email_mismatch');
    const accepted = await orgs.acceptInvitation({ token, userId: invited.id });
    expect(accepted.organization).toMatchObject({ id: organization.id, role: 'member' });
    expect(await codeOf(orgs.acceptInvitation({ token, userId: invited.id }))).toBe('org:invitation_invalid');
    expect(await codeOf(orgs.lookupInvitation({ token }))).toBe('org:invitation_invalid');
    expect(await codeOf(orgs.createInvitation({ actorUserId: owner.id, organizationId: organization.id, email: invited.email, role: 'member' }))).toBe('org:already_member');
  });

  it('refuses an address that is not verified, and a revoked link', async () => {
    const { owner, organization } = await newOrganization();
    const unverified = await newUser({ verified: false });
    await orgs.createInvitation({ actorUserId: owner.id, organizationId: organization.id, email: unverified.email, role: 'admin' });
    expect(await codeOf(orgs.acceptInvitation({ token: await mailedToken(unverified.email), userId: unverified.id }))).toBe('org:invitation_email_mismatch');

    const later = await newUser();
    const { invitation } = await orgs.createInvitation({ actorUserId: owner.id, organizationId: organization.id, email: later.email, role: 'member' });
    await orgs.revokeInvitation({ actorUserId: owner.id, organizationId: organization.id, invitationId: invitation!.id });
    expect(await codeOf(orgs.acceptInvitation({ token: await mailedToken(later.email), userId: later.id }))).toBe('org:invitation_invalid');
    expect(await codeOf(orgs.revokeInvitation({ actorUserId: owner.id, organizationId: organization.id, invitationId: invitation!.id }))).toBe('org:invitation_not_found');
    const revoked = await orgs.listInvitations({ actorUserId: owner.id, organizationId: organization.id, status: orgsV1.InvitationStatus.INVITATION_STATUS_REVOKED, limit: 0, cursor: '' });
    expect(revoked.invitations.map((each) => each.id)).toEqual([invitation!.id]);
  });

  it('accepts one of two acceptances at once, and one of an acceptance and a revocation at once', async () => {
    for (let round = 0; round < 5; round += 1) {
      const { owner, organization } = await newOrganization();
      const invited = await newUser();
      const { invitation } = await orgs.createInvitation({ actorUserId: owner.id, organizationId: organization.id, email: invited.email, role: 'member' });
      const token = await mailedToken(invited.email);
      const twice = await Promise.allSettled([orgs.acceptInvitation({ token, userId: invited.id }), orgs.acceptInvitation({ token, userId: invited.id })]);
      expect(twice.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);

      const racer = await newUser();
      const raced = await orgs.createInvitation({ actorUserId: owner.id, organizationId: organization.id, email: racer.email, role: 'member' });
      const racedToken = await mailedToken(racer.email);
      const outcomes = await Promise.allSettled([
        orgs.acceptInvitation({ token: racedToken, userId: racer.id }),
        orgs.revokeInvitation({ actorUserId: owner.id, organizationId: organization.id, invitationId: raced.invitation!.id }),
      ]);
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      const { rows } = await pool.query<{ accepted: boolean; revoked: boolean; member: boolean }>(
        `SELECT accepted_at IS NOT NULL AS accepted, revoked_at IS NOT NULL AS revoked,
                EXISTS (SELECT FROM identity.org_memberships WHERE organization_id = $2 AND user_id = $3) AS member
         FROM identity.org_invitations WHERE id = $1`,
        [raced.invitation!.id, organization.id, racer.id],
      );
      expect(rows[0]!.accepted).not.toBe(rows[0]!.revoked);
      expect(rows[0]!.member).toBe(rows[0]!.accepted);
      expect(invitation).toBeDefined();
    }
  });
});

describe('deleting an account', () => {
  it('is refused while it is the last owner of an organisation with other members, and takes its own organisation with it', async () => {
    const { owner, organization } = await newOrganization();
    await addMember(organization.id, 'member');
    const deleteAccount = (userId: string) => identity.deleteUser({ userId });
    expect(await codeOf(deleteAccount(owner.id))).toBe('org:last_owner');

    const alone = await newOrganization();
    await deleteAccount(alone.owner.id);
    const { rows } = await pool.query('SELECT FROM identity.organizations WHERE id = $1', [alone.organization.id]);
    expect(rows).toHaveLength(0);
  });
});

/** Waits until another connection to the test database waits on a lock. */
async function someoneWaitsOnALock(): Promise<void> {
  for (;;) {
    const { rows } = await pool.query(`SELECT FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
    if (rows.length > 0) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('an account deleted while it joins', () => {
  it('answers that the account is gone, not a failed write, when its deletion commits during an acceptance', async () => {
    const { owner, organization } = await newOrganization();
    const invited = await newUser();
    await orgs.createInvitation({ actorUserId: owner.id, organizationId: organization.id, email: invited.email, role: 'member' });
    const token = await mailedToken(invited.email);

    const deletion = await pool.connect();
    try {
      await deletion.query('BEGIN');
      await deletion.query('SELECT FROM identity.users WHERE id = $1 FOR UPDATE', [invited.id]);
      await deletion.query('DELETE FROM identity.users WHERE id = $1', [invited.id]);
      const accepted = codeOf(orgs.acceptInvitation({ token, userId: invited.id }));
      await someoneWaitsOnALock();
      // The deletion locks the account's organisations after the account; the acceptance must not hold one.
      await deletion.query(`SET LOCAL lock_timeout = '5s'`);
      await deletion.query('SELECT FROM identity.organizations WHERE id = $1 FOR UPDATE', [organization.id]);
      await deletion.query('COMMIT');
      expect(await accepted).toBe('auth:unauthorized');
    } finally {
      deletion.release();
    }
    const { rows } = await pool.query('SELECT FROM identity.org_memberships WHERE organization_id = $1', [organization.id]);
    expect(rows).toHaveLength(1);
  });
});

describe('OrganizationAccessService', () => {
  it('answers whether a member holds a permission: the owner every one, a custom role its own and its resource’s wildcard', async () => {
    const { owner, organization } = await newOrganization();
    await orgs.createRole({ actorUserId: owner.id, organizationId: organization.id, name: 'billing', permissions: ['invoices:*', 'reports:read'] });
    const clerk = await addMember(organization.id, 'billing');
    const stranger = await newUser();
    const check = (userId: string, permission: string) => access.checkPermission({ userId, organizationId: organization.id, permission });
    expect(await check(owner.id, 'invoices:approve')).toEqual({ allowed: true, role: 'owner' });
    expect(await check(clerk.id, 'invoices:approve')).toEqual({ allowed: true, role: 'billing' });
    expect(await check(clerk.id, 'reports:read')).toEqual({ allowed: true, role: 'billing' });
    expect(await check(clerk.id, 'reports:write')).toEqual({ allowed: false, role: 'billing' });
    expect(await check(clerk.id, 'members:manage')).toEqual({ allowed: false, role: 'billing' });
    expect(await check(stranger.id, 'invoices:approve')).toEqual({ allowed: false, role: '' });
    expect(await codeOf(check(clerk.id, 'nope'))).toBe('validation:invalid_input');
    const memberships = await access.listUserMemberships({ userId: clerk.id });
    expect(memberships.organizations).toEqual([expect.objectContaining({ id: organization.id, role: 'billing', permissions: ['invoices:*', 'reports:read'] })]);
  });
});
