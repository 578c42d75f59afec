import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { formatReport, writeReport, type BenchReport } from './report';
import { runBench } from './run-bench';
import { optInScenarios, scenarioNames as allScenarioNames } from './scenarios';

/**
 * Keeps the harness working: every scenario for about a second against a
 * real throwaway stack (its own database, prefixes and random ports, so it
 * runs beside other tests), with a 2 000-post search corpus and an
 * organisation of 250 members for org-members. It checks that each scenario
 * yields a filled row, a baseline and no errors; performance numbers are
 * not asserted.
 * Needs `pnpm build` first, like the end-to-end tests. me-cluster, which
 * starts a Redis Cluster, runs once, in the topology project
 * (test/topology/bench-cluster.test.ts).
 */
const scenarioNames = allScenarioNames.filter((name) => !optInScenarios.includes(name));

let report: BenchReport;
const scratch = mkdtempSync(path.join(tmpdir(), 'latchkey-bench-smoke-'));

beforeAll(async () => {
  report = await runBench({
    durationSeconds: 1,
    rounds: 1,
    // Also keeps a scenario's first, cold requests (connections, JIT) out of a one-second run on a busy machine.
    warmupSeconds: 0.5,
    scenarios: scenarioNames,
    connections: 4,
    users: 3,
    posts: 30,
    searchPosts: 2_000,
    searchRepeats: 2,
    // Three pages of 100: enough to follow the cursors, small enough to write and read in a moment.
    orgMembers: 250,
    createRate: 50,
    webhookEvents: 10,
    webhookRate: 10,
    // Nothing here is measured for its numbers: a short wait for quiet is enough.
    idleTimeoutMs: 2_000,
  });
  // Eleven scenarios and the OpenID Provider's five, each with a warm-up and both sides: about a minute and a
  // half on a quiet machine; a machine busy with other builds may take three times as long.
}, 270_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('pnpm bench, one second per scenario', () => {
  it('measures every scenario through the gateway without errors', () => {
    expect(report.scenarios.map((result) => result.scenario)).toEqual([...scenarioNames]);
    const unanswered = report.scenarios.filter((result) => result.gateway.requests === 0 || (result.baseline?.requests ?? 1) === 0);
    expect(unanswered.map((result) => result.scenario)).toEqual([]);
    for (const { gateway } of report.scenarios) {
      expect(gateway.requests).toBeGreaterThan(0);
      expect(gateway.requestsPerSecond).toBeGreaterThan(0);
      expect(gateway.latency.p50Ms).toBeGreaterThan(0);
      expect(gateway.latency.p99Ms).toBeGreaterThanOrEqual(gateway.latency.p50Ms);
      expect(gateway.errors).toBe(0);
      expect(gateway.cpuMsPerRequest).toBeGreaterThan(0);
      expect(Object.keys(gateway.cpuMsByProcess)).toEqual(expect.arrayContaining(['gateway', 'identity', 'posts']));
    }
  });

  it('runs a baseline beside each read scenario and login', () => {
    const withBaseline = report.scenarios.filter((r) => !['post-create', 'org-members', 'scim-users', 'search'].includes(r.scenario));
    expect(withBaseline.map((r) => r.scenario)).toEqual([
      'me',
      'me-org',
      'introspect',
      'org-check',
      'token',
      'oidc-userinfo',
      'oidc-introspect',
      'oidc-auth',
      'oidc-code',
      'oidc-refresh',
      'post-get',
      'post-list',
      'login',
    ]);
    for (const result of withBaseline) {
      expect(result.baseline?.requestsPerSecond).toBeGreaterThan(0);
      expect(result.baseline?.errors).toBe(0);
      expect(result.ratio).toBeGreaterThan(0);
    }
  });

  it('measures me acting for an organisation against me without one on the same gateway', () => {
    const meOrg = report.scenarios.find((result) => result.scenario === 'me-org');
    expect(meOrg?.baseline?.label).toBe('GET /v0/users/me, no organisation');
    // Both sides are the stack's: its gateway serves them, and neither is the bare server.
    expect(meOrg?.baseline?.cpuMsByProcess.gateway).toBeGreaterThan(0);
    expect(Object.keys(meOrg?.baseline?.cpuMsByProcess ?? {})).not.toContain('bare Fastify server');
  });

  it("checks permissions at identity's platform listener, every answer the seeded role's", () => {
    const check = report.scenarios.find((result) => result.scenario === 'org-check');
    // A check answered against the role (a member allowed members:manage, say) would be counted as a non-2xx.
    expect(check?.gateway.statusCodes).toEqual({ OK: check?.gateway.requests });
    expect(check?.serverTimings.map((timing) => `${timing.unit} ${timing.operation}`)).toContain(
      'identity /orgs.v1.OrganizationAccessService/CheckPermission',
    );
    expect(check?.baseline?.label).toBe('bare gRPC unary: 1 Redis GET');
  });

  it("times every page of a large organisation's members alone, each member once per pass", () => {
    const listing = report.scenarios.find((result) => result.scenario === 'org-members')?.memberListing;
    expect(listing).toMatchObject({ members: 251, pagesPerPass: 3, incompletePasses: 0 });
    expect(listing?.latency.count).toBe(3 * (listing?.passes ?? 0));
    expect(listing?.latency.p99Ms).toBeGreaterThan(0);
  });

  it("times every page of a large organisation's SCIM directory alone, each user once per pass", () => {
    const listing = report.scenarios.find((result) => result.scenario === 'scim-users')?.scimListing;
    // Every member but the owner, whom no identity provider provisioned.
    expect(listing).toMatchObject({ members: 250, pagesPerPass: 3, incompletePasses: 0 });
    expect(listing?.latency.count).toBe(3 * (listing?.passes ?? 0));
    expect(listing?.latency.p99Ms).toBeGreaterThan(0);
  });

  it('runs the peer (Better Auth) beside me and login, in its own process', () => {
    const withPeer = report.scenarios.filter((r) => r.peer !== undefined);
    expect(withPeer.map((r) => r.scenario)).toEqual(['me', 'login']);
    for (const result of withPeer) {
      expect(result.peer?.requests).toBeGreaterThan(0);
      expect(result.peer?.errors).toBe(0);
      expect(result.peer?.cpuMsByProcess['Better Auth server']).toBeGreaterThan(0);
      expect(result.peerRatio).toBeGreaterThan(0);
    }
    expect(report.processes.find((p) => p.name === 'Better Auth server')?.role).toBe('peer');
  });

  it('finds every created post by search and times it', () => {
    const create = report.scenarios.find((result) => result.scenario === 'post-create');
    expect(create?.searchLatency?.created).toBeGreaterThan(0);
    expect(create?.searchLatency?.notFound).toBe(0);
    expect(create?.searchLatency?.p99Ms).toBeGreaterThan(0);
  });

  it("answers a signed-in browser's authorization request with a single redirect to the client", () => {
    const auth = report.scenarios.find((result) => result.scenario === 'oidc-auth');
    // A redirect elsewhere (an interaction) would be counted under another key, and as an error.
    expect(Object.keys(auth?.gateway.statusCodes ?? {}).every((status) => status === '302' || status === '303')).toBe(true);
    expect(auth?.gateway.errors).toBe(0);
    const introspect = report.scenarios.find((result) => result.scenario === 'oidc-introspect');
    expect(introspect?.gateway.statusCodes).toEqual({ '200': introspect?.gateway.requests });
  });

  it('searches at a fixed rate while posts are created', () => {
    const phase = report.scenarios.find((result) => result.scenario === 'search')?.searchUnderWrites;
    expect(phase).toMatchObject({ durationSeconds: 1, searchRate: 30, createRate: 50, searchErrors: 0, createErrors: 0 });
    expect(phase?.searched).toBeGreaterThan(0);
    expect(phase?.created).toBeGreaterThan(0);
    expect(phase?.latency.p99Ms).toBeGreaterThan(0);
  });

  it('times the costliest searches alone and looks for the planted old best matches', () => {
    const quality = report.scenarios.find((result) => result.scenario === 'search')?.searchQuality;
    expect(quality?.sequential.count).toBeGreaterThan(0);
    expect(quality?.perQuery.length).toBeGreaterThan(0);
    expect(quality?.relevance.map((probe) => probe.query)).toHaveLength(5);
  });

  it('reads the peak RSS of every stack unit and baseline process', () => {
    const names = report.processes.map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['gateway', 'identity', 'totp', 'posts', 'jobs', 'bare Fastify server']));
    for (const p of report.processes) expect(p.peakRssBytes).toBeGreaterThan(0);
  });

  it('checks each target and writes the report as JSON and Markdown', async () => {
    expect(report.targets.map((target) => target.name)).toEqual(
      expect.arrayContaining([
        'me',
        'me-org',
        'introspect',
        'org-check',
        'token',
        'post-get',
        'post-list',
        'login',
        'me vs peer',
        'login vs peer',
        'oidc-userinfo',
        'oidc-introspect',
        'oidc-auth rate',
        'oidc-code rate',
        'oidc-code latency',
        'oidc-refresh rate',
        'post-create → searchable',
        'search alone',
        'search relevance',
        'search under writes',
        'member listing alone',
        'errors',
        'memory',
      ]),
    );
    const file = await writeReport(report, scratch);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(JSON.parse(JSON.stringify(report)));
    const text = formatReport(report);
    for (const name of scenarioNames) expect(text).toContain(`| ${name} |`);
  });
});
