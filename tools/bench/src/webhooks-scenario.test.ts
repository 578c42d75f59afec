import { formatReport, type BenchReport, type ScenarioResult } from './report';
import { runBench } from './run-bench';

/**
 * The opt-in webhooks scenario against a real throwaway stack, small: 40
 * role changes, one connection so that they follow each other and each is
 * an event, each a signed message to 9 receivers and to a down endpoint.
 * It checks that the bench counts what the stack did (every event, every
 * message received, the down endpoint's attempts) and reports the delays;
 * performance numbers are not asserted. Needs `pnpm build` first.
 */
const EVENTS = 40;

let report: BenchReport;
let result: ScenarioResult;

beforeAll(async () => {
  report = await runBench({
    durationSeconds: 1,
    rounds: 1,
    warmupSeconds: 0,
    scenarios: ['webhooks'],
    connections: 1,
    users: 3,
    posts: 1,
    searchPosts: 1,
    searchRepeats: 1,
    orgMembers: 1,
    createRate: 50,
    webhookEvents: EVENTS,
    webhookRate: 20,
    idleTimeoutMs: 2_000,
  });
  result = report.scenarios[0]!;
}, 180_000);

describe('the webhooks scenario', () => {
  it('causes one event per request and counts every message the 9 live receivers got, once each', () => {
    expect(result.scenario).toBe('webhooks');
    expect(result.gateway).toMatchObject({ requests: EVENTS, errors: 0 });
    expect(result.webhookDeliveries).toMatchObject({
      events: EVENTS,
      liveEndpoints: 9,
      downEndpoints: 1,
      expected: EVENTS * 9,
      delivered: EVENTS * 9,
    });
  });

  it('reports the delays from each event to its message and the down endpoint’s attempts', () => {
    const hooks = result.webhookDeliveries!;
    expect(hooks.delay.count).toBe(EVENTS * 9);
    expect(hooks.delay.p50Ms).toBeGreaterThan(0);
    expect(hooks.delay.maxMs).toBeGreaterThanOrEqual(hooks.delay.p99Ms);
    expect(hooks.deliveriesPerSecond).toBeGreaterThan(0);
    expect(hooks.downAttempts).toBeGreaterThan(0);
    // The receivers' own process is watched like the harness's.
    expect(result.gateway.cpuMsByProcess).toHaveProperty(['webhook receivers']);
    expect(report.processes.map((p) => p.name)).toContain('webhook receivers');
    expect(report.targets.find((target) => target.name === 'webhook deliveries')?.actual).toContain(`${EVENTS * 9} of ${EVENTS * 9} delivered`);
    expect(formatReport(report)).toContain(`| ${EVENTS} | `);
  });
});
