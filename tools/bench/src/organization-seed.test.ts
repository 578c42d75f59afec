import pg from 'pg';
import { z } from 'zod';
import { openBenchTarget, type BenchTarget } from './bench-stack';
import { runGrpcLoad } from './grpc-load';
import { seedLargeOrganization } from './large-organization';
import { measureMemberListing, memberPagePath, memberPagePaths } from './member-listing';
import { permissionChecks } from './scenarios';
import { removeSeed, seed, type Seed } from './seed';

/**
 * What the organisation scenarios rest on, against a real throwaway stack
 * (needs `pnpm build`, like the smoke test): the seeded organisation and its
 * sessions, the permission checks and the answers they expect, the large
 * organisation written into PostgreSQL and read through the API, and the
 * removal of a seed from an external stack.
 */
jest.setTimeout(120_000);

let target: BenchTarget;
let seeded: Seed;

beforeAll(async () => {
  target = await openBenchTarget({ env: { ...process.env, BENCH_URL: '' } });
  seeded = await seed(target, { users: 3, posts: 0 });
});

afterAll(async () => {
  await target?.close();
});

const meSchema = z.object({ id: z.string(), active_org: z.object({ id: z.string(), role: z.string() }).nullable() });

async function me(cookie: string): Promise<z.infer<typeof meSchema>> {
  const response = await fetch(`${target.gatewayUrl}/v0/users/me`, { headers: { cookie: `session_id=${cookie}` } });
  expect(response.status).toBe(200);
  return meSchema.parse(await response.json());
}

describe('seed()', () => {
  it('makes the first account owner of an organisation the others joined by invitation, each with a second session acting for it', async () => {
    expect(seeded.users.map((user) => user.orgRole)).toEqual(['owner', 'member', 'member']);
    for (const user of seeded.users) {
      expect(user.orgCookie).not.toBe(user.cookie);
      expect(await me(user.orgCookie)).toMatchObject({ id: user.id, active_org: { id: seeded.organizationId, role: user.orgRole } });
      expect(await me(user.cookie)).toMatchObject({ id: user.id, active_org: null });
    }
  });
});

describe('the check-permission load', () => {
  const load = (checks: ReturnType<typeof permissionChecks>) => {
    if (!target.orgsGrpcAddress) throw new Error('the launched stack reports no identity platform port');
    return runGrpcLoad({
      type: 'run',
      id: 1,
      url: target.gatewayUrl,
      connections: 2,
      durationSeconds: 0.3,
      requests: [{ method: 'GET', path: '/', headers: {} }],
      grpc: { call: 'check-permission', address: target.orgsGrpcAddress, checks },
    });
  };

  it("gets, at identity's platform listener, the answer each seeded role gives", async () => {
    const checks = permissionChecks(seeded);
    expect(checks.filter((check) => check.allowed).map((check) => check.permission)).toEqual([
      'members:read',
      'members:manage',
      'reports:export',
      'members:read',
      'members:read',
    ]);
    const result = await load(checks);
    expect(result.latenciesMs.length).toBeGreaterThan(0);
    expect(result.statusCodes).toEqual({ OK: result.latenciesMs.length });
    expect(result.non2xx).toBe(0);
  });

  it('counts an answer other than the expected one like a non-2xx', async () => {
    const result = await load(permissionChecks(seeded).map((check) => ({ ...check, allowed: !check.allowed })));
    expect(result.latenciesMs.length).toBeGreaterThan(0);
    expect(result.non2xx).toBe(result.latenciesMs.length);
    expect(result.socketErrors).toBe(0);
  });
});

describe('seedLargeOrganization()', () => {
  it('writes members the API lists page by page in the order they joined, each once, the owner first', async () => {
    const owner = seeded.users[0]!;
    const organization = await seedLargeOrganization(target.baseline.databaseUrl, owner, 150);
    expect(organization.members).toBe(151);

    const paths = await memberPagePaths(target.gatewayUrl, organization);
    expect(paths).toHaveLength(2);
    expect(paths[0]).toBe(memberPagePath(organization.id, null));
    const first = await fetch(`${target.gatewayUrl}${paths[0]}`, { headers: { cookie: `session_id=${owner.cookie}` } });
    const page = z
      .object({ items: z.array(z.object({ user: z.object({ id: z.string() }), role: z.string(), joined_at: z.string() })) })
      .parse(await first.json());
    expect(page.items).toHaveLength(100);
    expect(page.items[0]).toMatchObject({ user: { id: owner.id }, role: 'owner' });
    expect(page.items.slice(1).every((item) => item.role === 'member')).toBe(true);
    const joined = page.items.map((item) => Date.parse(item.joined_at));
    expect(joined).toEqual([...joined].sort((a, b) => a - b));

    const listing = await measureMemberListing(target.gatewayUrl, organization, 2);
    expect(listing).toMatchObject({ members: 151, pagesPerPass: 2, passes: 2, incompletePasses: 0 });
    expect(listing.latency.count).toBe(4);

    // Another account's session learns nothing of it.
    const other = await fetch(`${target.gatewayUrl}${paths[0]}`, { headers: { cookie: `session_id=${seeded.users[1]!.cookie}` } });
    expect(other.status).toBe(404);
  });
});

describe('removeSeed()', () => {
  it("deletes the seed's organisation and then its accounts", async () => {
    const removable = await seed(target, { users: 2, posts: 0 });
    await removeSeed(target, removable);
    const db = new pg.Client({ connectionString: target.baseline.databaseUrl });
    await db.connect();
    try {
      const organizations = await db.query('SELECT FROM identity.organizations WHERE id = $1', [removable.organizationId]);
      const accounts = await db.query('SELECT FROM identity.users WHERE id = ANY($1::uuid[])', [removable.users.map((user) => user.id)]);
      expect({ organizations: organizations.rowCount, accounts: accounts.rowCount }).toEqual({ organizations: 0, accounts: 0 });
    } finally {
      await db.end();
    }
  });
});
