import { runBench } from '../../tools/bench/src/run-bench';
import type { BenchReport } from '../../tools/bench/src/report';

/**
 * Keeps `pnpm bench --scenarios me,me-cluster` working (docs/performance.md,
 * "Redis Cluster"): a second gateway of the throwaway stack on a Redis
 * Cluster of its own, with the seeded sessions copied there, measured for
 * about a second against the stack's gateway on one Redis. The ratio is
 * not asserted: a one-second run on a shared machine says nothing about it.
 */
jest.setTimeout(180_000);

let report: BenchReport;

beforeAll(async () => {
  report = await runBench({
    durationSeconds: 1,
    rounds: 1,
    warmupSeconds: 0.5,
    scenarios: ['me', 'me-cluster'],
    connections: 4,
    users: 3,
    posts: 5,
    searchPosts: 10,
    searchRepeats: 1,
    orgMembers: 10,
    createRate: 50,
    webhookEvents: 10,
    webhookRate: 10,
    idleTimeoutMs: 5_000,
  });
});

it('measures the session check on a Redis Cluster beside the same gateway on one Redis, without errors', () => {
  const cluster = report.scenarios.find((result) => result.scenario === 'me-cluster');
  expect(cluster?.gateway.requests).toBeGreaterThan(0);
  expect(cluster?.gateway.errors).toBe(0);
  expect(cluster?.baseline?.label).toBe('GET /v0/users/me, one Redis');
  expect(cluster?.baseline?.errors).toBe(0);
  expect(cluster?.ratio).toBeGreaterThan(0);
  expect(report.targets.map((target) => target.name)).toContain('me-cluster');
  expect(report.processes.map((process) => process.name)).toEqual(expect.arrayContaining(['gateway (one Redis)', 'gateway (Redis Cluster)']));
});
