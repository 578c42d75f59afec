import os from 'node:os';
import { Argon2Rate, launchBareServer, type RunningBareServer } from './baselines/baseline-processes';
import { openBenchTarget, type BenchTarget } from './bench-stack';
import { CpuProfiles } from './cpu-profiles';
import { round, summarizeLatencies } from './latency-stats';
import { LoadGenerator } from './load-generator';
import { launchPeer, type RunningPeer } from './peer/peer-process';
import type { SearchLatency } from './load-messages';
import {
  clockTicksPerSecond,
  cpuMillisecondsBetween,
  readCpu,
  readMemoryUsage,
  waitUntilIdle,
  type WatchedProcess,
} from './process-usage';
import type { BenchReport, MachineInfo, ProcessMemory, RunMeasurement, ScenarioResult } from './report';
import { scenarios, type LoadPlan, type Prepared, type Scenario, type ScenarioContext, type ScenarioName } from './scenarios';
import { removeSeed, seed, type Seed } from './seed';
import { mergeTimings, readTimings, timingsBetween, type OperationTiming } from './service-metrics';
import { evaluateTargets } from './targets';
import { startRedisGateways, type RedisGateways } from './redis-gateways';
import { LIVE_WEBHOOK_ENDPOINTS, type WebhookDeliveries } from './webhook-deliveries';
import { WebhookReceivers } from './webhook-receiver-process';

export interface BenchOptions {
  /** Seconds of measured load per side (gateway, baseline) of each scenario. */
  readonly durationSeconds: number;
  /**
   * The duration is cut into this many slices, and the gateway's and the
   * baseline's slices alternate (baseline first in odd rounds, gateway
   * first in even ones), so that a burst of load from elsewhere on the
   * machine hits both sides alike instead of one whole run.
   */
  readonly rounds: number;
  /** A run of this length per side before the measured ones (JIT, pools, caches); 0 for none. */
  readonly warmupSeconds: number;
  readonly scenarios: readonly ScenarioName[];
  readonly connections: number;
  readonly users: number;
  readonly posts: number;
  /** The `search` scenario's corpus, written into the database before it runs. */
  readonly searchPosts: number;
  /** After the search load, runs of each costliest query alone (20: a p99 over 100 searches). */
  readonly searchRepeats: number;
  /** Members of the `org-members` scenario's organisation besides its owner, written into the database before it runs. */
  readonly orgMembers: number;
  /** post-create's creates per second. */
  readonly createRate: number;
  /**
   * webhooks: the events caused, one per request, and how many per second.
   * Ten a second is a hundred messages a second to the ten endpoints, below
   * what the stack delivers on two busy cores (docs/performance.md,
   * "Webhook deliveries"), so that the run measures the delay and not a
   * growing queue.
   */
  readonly webhookEvents: number;
  readonly webhookRate: number;
  /** How long to wait for the stack to go quiet before each scenario. */
  readonly idleTimeoutMs: number;
  /** When set, each launched unit's CPU profile of each scenario's gateway runs goes there (`<scenario>-<unit>.cpuprofile`). */
  readonly cpuProfileDir?: string;
  /** Where BENCH_URL and the backing-service variables are read; default process.env. */
  readonly env?: NodeJS.ProcessEnv;
  readonly onProgress?: (message: string) => void;
  /** Aborting stops the run at the next step (a load run in progress is cut short) and cleans up. */
  readonly signal?: AbortSignal;
}

export const defaultBenchOptions = {
  durationSeconds: 10,
  connections: 10,
  users: 16,
  posts: 2_000,
  searchPosts: 1_000_000,
  searchRepeats: 20,
  orgMembers: 10_000,
  createRate: 50,
  webhookEvents: 10_000,
  webhookRate: 10,
  idleTimeoutMs: 60_000,
} as const;

/** A warm-up a fifth of the run, 1 to 3 seconds: enough for the JIT, short next to the run. */
export function defaultWarmupSeconds(durationSeconds: number): number {
  return Math.min(3, Math.max(1, durationSeconds / 5));
}

/** Slices of about two seconds: long enough for autocannon to reach its pace, short next to a noise burst. */
export function defaultRounds(durationSeconds: number): number {
  return Math.max(1, Math.round(durationSeconds / 2));
}

function machineInfo(ticksPerSecond: number): MachineInfo {
  return {
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    totalMemoryBytes: os.totalmem(),
    clockTicksPerSecond: ticksPerSecond,
  };
}

/** What one slice of load answers, whichever process generated it. */
interface Slice {
  readonly durationSeconds: number;
  readonly latenciesMs: Float64Array;
  readonly non2xx: number;
  readonly socketErrors: number;
  readonly timeouts: number;
  readonly statusCodes: Readonly<Record<string, number>>;
  /** The load generator's CPU time, when a load generator made the load. */
  readonly loaderCpuMs?: number;
  readonly searchLatency?: SearchLatency;
  readonly webhookDeliveries?: WebhookDeliveries;
}

/** One side of a scenario: the gateway route or its baseline. */
interface Side {
  readonly label: string;
  /** The processes whose CPU time is this side's cost. */
  readonly served: readonly WatchedProcess[];
  run(durationSeconds: number, warmup: boolean): Promise<Slice>;
  /** Unit metrics endpoints, read around each slice (the gateway side only). */
  readonly metricsUrls?: ReadonlyMap<string, string>;
}

/** Adds up the slices of one side. */
class Tally {
  private durationSeconds = 0;
  private readonly latencies: Float64Array[] = [];
  private non2xx = 0;
  private socketErrors = 0;
  private timeouts = 0;
  private loaderCpuMs: number | undefined;
  private servedCpuMs = 0;
  private readonly statusCodes: Record<string, number> = {};
  private readonly cpuMsByProcess: Record<string, number> = {};
  private readonly timings: OperationTiming[][] = [];
  /** Requests per second of each slice, in order. */
  readonly sliceRates: number[] = [];
  searchLatency: SearchLatency | undefined;
  webhookDeliveries: WebhookDeliveries | undefined;

  add(slice: Slice, cpuMs: Record<string, number>, served: readonly WatchedProcess[], timings: OperationTiming[]): void {
    this.durationSeconds += slice.durationSeconds;
    this.latencies.push(slice.latenciesMs);
    this.non2xx += slice.non2xx;
    this.socketErrors += slice.socketErrors;
    this.timeouts += slice.timeouts;
    if (slice.loaderCpuMs !== undefined) this.loaderCpuMs = (this.loaderCpuMs ?? 0) + slice.loaderCpuMs;
    for (const [code, count] of Object.entries(slice.statusCodes)) this.statusCodes[code] = (this.statusCodes[code] ?? 0) + count;
    for (const [name, ms] of Object.entries(cpuMs)) this.cpuMsByProcess[name] = (this.cpuMsByProcess[name] ?? 0) + ms;
    this.servedCpuMs += served.reduce((sum, p) => sum + (cpuMs[p.name] ?? 0), 0);
    this.timings.push(timings);
    this.sliceRates.push(slice.durationSeconds > 0 ? slice.latenciesMs.length / slice.durationSeconds : 0);
    if (slice.searchLatency) this.searchLatency = slice.searchLatency;
    if (slice.webhookDeliveries) this.webhookDeliveries = slice.webhookDeliveries;
  }

  get serverTimings(): OperationTiming[] {
    return mergeTimings(this.timings);
  }

  measurement(label: string): RunMeasurement {
    const requests = this.latencies.reduce((sum, slice) => sum + slice.length, 0);
    const all = new Float64Array(requests);
    let offset = 0;
    for (const slice of this.latencies) {
      all.set(slice, offset);
      offset += slice.length;
    }
    const cpuMsByProcess: Record<string, number> = {};
    for (const [name, ms] of Object.entries(this.cpuMsByProcess)) cpuMsByProcess[name] = round(ms, 1);
    return {
      label,
      durationSeconds: round(this.durationSeconds, 3),
      requests,
      requestsPerSecond: this.durationSeconds > 0 ? round(requests / this.durationSeconds, 1) : 0,
      latency: summarizeLatencies(all),
      errors: this.non2xx + this.socketErrors,
      non2xx: this.non2xx,
      socketErrors: this.socketErrors,
      timeouts: this.timeouts,
      statusCodes: this.statusCodes,
      cpuMsPerRequest: requests > 0 ? round(this.servedCpuMs / requests, 3) : 0,
      cpuMsByProcess,
      ...(this.loaderCpuMs !== undefined && this.durationSeconds > 0
        ? { loaderCpuPercent: round(this.loaderCpuMs / (this.durationSeconds * 10), 1) }
        : {}),
    };
  }
}

/**
 * Runs the selected scenarios against the gateway and their baselines, in
 * one process's lifetime on one machine, and answers the report. Stops
 * and removes everything it started, also when it fails.
 */
export async function runBench(options: BenchOptions): Promise<BenchReport> {
  const progress = options.onProgress ?? ((): void => undefined);
  const { signal } = options;
  const startedAt = new Date().toISOString();
  const ticksPerSecond = clockTicksPerSecond();
  const selected = scenarios.filter((scenario) => options.scenarios.includes(scenario.name));
  const harness: WatchedProcess = { name: 'bench (launcher, s3rver, mail catcher)', role: 'harness', pid: process.pid };

  const target = await openBenchTarget({
    ...(signal ? { signal } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.cpuProfileDir ? { cpuProfileDir: options.cpuProfileDir } : {}),
    onEvent: (event) => {
      if (event.type === 'ready') progress(`${event.unit} ready (pid ${event.pid ?? '?'}) in ${event.elapsedMs} ms`);
    },
  });
  progress(`gateway at ${target.gatewayUrl} (${target.kind} stack)`);

  let seeded: Seed | undefined;
  let redisGateways: RedisGateways | undefined;
  let bare: RunningBareServer | undefined;
  let argon2: Argon2Rate | undefined;
  let peer: RunningPeer | undefined;
  let loader: LoadGenerator | undefined;
  let receivers: WebhookReceivers | undefined;
  try {
    loader = LoadGenerator.start();
    if (selected.some((scenario) => scenario.baseline.kind === 'http')) {
      bare = await launchBareServer(target.baseline);
      progress(`bare server at ${bare.url} (pid ${bare.pid})`);
    }
    if (selected.some((scenario) => scenario.baseline.kind === 'argon2')) argon2 = Argon2Rate.start();
    if (target.kind === 'launched' && selected.some((scenario) => scenario.name === 'webhooks')) {
      receivers = await WebhookReceivers.start(LIVE_WEBHOOK_ENDPOINTS);
      progress(`webhook receivers at ${receivers.liveUrls.length} ports (pid ${receivers.pid}), the down endpoint at ${receivers.downUrl}`);
    }
    seeded = await seed(target, {
      users: options.users,
      posts: options.posts,
      onProgress: progress,
      ...(signal ? { signal } : {}),
    });
    if (selected.some((scenario) => scenario.peer)) {
      if (target.kind === 'launched') {
        const peerStarted = Date.now();
        peer = await launchPeer(
          {
            databaseUrl: target.baseline.databaseUrl,
            schema: 'bench_peer',
            redisUrl: target.baseline.redisUrl,
            redisKeyPrefix: `${target.baseline.redisKeyPrefix}peer:`,
            argon2: target.argon2,
            databasePoolMax: target.baseline.databasePoolMax,
          },
          seeded.users,
          target.threadPoolSize,
        );
        progress(`peer (Better Auth) at ${peer.url} (pid ${peer.pid}), ${peer.users.length} accounts in ${Date.now() - peerStarted} ms`);
      } else {
        progress('peer: skipped; it keeps its accounts in a schema of the database, so it runs only beside a launched stack');
      }
    }
    if (selected.some((scenario) => scenario.name === 'me-cluster')) {
      redisGateways = await startRedisGateways(target);
      await redisGateways.copySessions(seeded.users.map((user) => user.cookie));
      progress(`gateways on one Redis at ${redisGateways.standalone.url} and on a Redis Cluster at ${redisGateways.cluster.url}`);
    }
    const idleAfterSeeding = await waitForIdle(target, ticksPerSecond, options.idleTimeoutMs);
    progress(idleAfterSeeding ? 'stack idle after seeding' : 'stack still busy after seeding; measuring anyway');

    const context: ScenarioContext = {
      gatewayUrl: target.gatewayUrl,
      gatewayGrpcAddress: target.gatewayGrpcAddress,
      orgsGrpcAddress: target.orgsGrpcAddress,
      bareServerUrl: bare?.url,
      bareGrpcAddress: bare?.grpcAddress,
      peer: peer ? { url: peer.url, users: peer.users } : undefined,
      standaloneGatewayUrl: redisGateways?.standalone.url,
      clusterGatewayUrl: redisGateways?.cluster.url,
      seed: seeded,
      connections: options.connections,
      createRate: options.createRate,
      webhookEvents: options.webhookEvents,
      webhookRate: options.webhookRate,
    };
    const generator = loader;
    const httpSide = (
      label: string,
      plan: LoadPlan,
      served: readonly WatchedProcess[],
      metricsUrls?: ReadonlyMap<string, string>,
      afterLoad?: () => Promise<Pick<Slice, 'webhookDeliveries'>>,
    ): Side => ({
      label,
      served,
      ...(metricsUrls ? { metricsUrls } : {}),
      async run(durationSeconds, warmup) {
        // A warm-up is not measured, so it leaves the search probe out.
        const { searchProbe, ...rest } = plan;
        // A load of so many requests takes as long as its rate makes it.
        const duration = plan.amount !== undefined && plan.overallRate !== undefined ? plan.amount / plan.overallRate : durationSeconds;
        const slice = await generator.run({ ...rest, ...(warmup || !searchProbe ? {} : { searchProbe }), durationSeconds: duration }, signal);
        return warmup || !afterLoad ? slice : { ...slice, ...(await afterLoad()) };
      },
    });
    const profiles = options.cpuProfileDir && target.kind === 'launched' ? new CpuProfiles(options.cpuProfileDir) : undefined;

    /** One measured slice of one side, with CPU time and unit timings around it. */
    const receiversProcess: WatchedProcess[] = receivers ? [{ name: 'webhook receivers', role: 'harness', pid: receivers.pid }] : [];
    const measureSlice = async (side: Side, tally: Tally, durationSeconds: number): Promise<void> => {
      signal?.throwIfAborted();
      const watched = [...side.served, harness, ...receiversProcess];
      const timingsBefore = side.metricsUrls ? await readTimings(side.metricsUrls) : undefined;
      const before = await readCpu(watched);
      const slice = await side.run(durationSeconds, false);
      const after = await readCpu(watched);
      const timings = side.metricsUrls && timingsBefore ? timingsBetween(timingsBefore, await readTimings(side.metricsUrls)) : [];
      tally.add(slice, cpuMillisecondsBetween(watched, before, after, ticksPerSecond), side.served, timings);
    };

    const afterLoadOf = (scenario: Scenario, prepared: Prepared): (() => Promise<Pick<Slice, 'webhookDeliveries'>>) | undefined => {
      const { afterLoad } = scenario;
      if (!afterLoad) return undefined;
      return () => afterLoad({ databaseUrl: target.baseline.databaseUrl, prepared, ...(signal ? { signal } : {}) });
    };

    const results: ScenarioResult[] = [];
    for (const scenario of selected) {
      signal?.throwIfAborted();
      let prepared: Prepared = {};
      if (scenario.prepare) {
        if (target.kind === 'external') {
          progress(`${scenario.name}: skipped; it writes what it reads into the database, so it runs only on a launched stack`);
          continue;
        }
        const preparing = Date.now();
        prepared = await scenario.prepare({
          databaseUrl: target.baseline.databaseUrl,
          gatewayUrl: target.gatewayUrl,
          seed: seeded,
          searchPosts: options.searchPosts,
          orgMembers: options.orgMembers,
          webhookReceivers: receivers,
          onProgress: progress,
          ...(signal ? { signal } : {}),
        });
        progress(`${scenario.name}: prepared in ${Date.now() - preparing} ms`);
      }
      const startedIdle = await waitForIdle(target, ticksPerSecond, options.idleTimeoutMs);
      // me-cluster's gateways are the two more ones; the services behind them are the stack's.
      const servedBy = (gateway: { pid: number }): WatchedProcess[] => [
        { name: 'gateway', role: 'stack', pid: gateway.pid },
        ...target.processes.filter((p) => p.name !== 'gateway'),
      ];
      const gatewaySide =
        scenario.name === 'me-cluster' && redisGateways
          ? httpSide(scenario.label, scenario.gateway(context, prepared), servedBy(redisGateways.cluster))
          : httpSide(scenario.label, scenario.gateway(context, prepared), target.processes, target.metricsUrls, afterLoadOf(scenario, prepared));
      const baselineSide = baselineOf(scenario, context, target, {
        bare,
        argon2,
        httpSide,
        oneRedisGateway: redisGateways && servedBy(redisGateways.standalone),
      });
      const peerSide = scenario.peer && peer ? httpSide(scenario.peer.label, scenario.peer.load(context), [peerProcess(peer)]) : undefined;
      const gatewayTally = new Tally();
      const baselineTally = baselineSide ? new Tally() : undefined;
      const peerTally = peerSide ? new Tally() : undefined;
      const sides: { side: Side; tally: Tally }[] = [
        ...(baselineSide && baselineTally ? [{ side: baselineSide, tally: baselineTally }] : []),
        { side: gatewaySide, tally: gatewayTally },
        ...(peerSide && peerTally ? [{ side: peerSide, tally: peerTally }] : []),
      ];
      if (scenario.warmsUp && options.warmupSeconds > 0) {
        for (const { side } of sides) await side.run(options.warmupSeconds, true);
      }
      // Rate-limited post-create has no baseline to alternate with: one run.
      const rounds = baselineSide ? options.rounds : 1;
      if (profiles) await profiles.start(target.processes);
      for (let index = 0; index < rounds; index += 1) {
        const order = index % 2 === 0 ? sides : [...sides].reverse();
        for (const { side, tally } of order) await measureSlice(side, tally, options.durationSeconds / rounds);
      }
      if (profiles) {
        const files = await profiles.stop(target.processes, scenario.name);
        progress(`${scenario.name}: ${files.length} CPU profiles in ${options.cpuProfileDir ?? ''}`);
      }

      const alone = scenario.alone
        ? await scenario.alone({
            gatewayUrl: target.gatewayUrl,
            prepared,
            seed: seeded,
            searchRepeats: options.searchRepeats,
            durationSeconds: options.durationSeconds,
            load: (job) => generator.run(job, signal),
            ...(signal ? { signal } : {}),
          })
        : {};
      const gateway = gatewayTally.measurement(scenario.label);
      const baseline = baselineSide && baselineTally ? baselineTally.measurement(baselineSide.label) : undefined;
      const peerRun = peerSide && peerTally ? peerTally.measurement(peerSide.label) : undefined;
      const roundRatios = baselineTally ? ratiosPerRound(gatewayTally, baselineTally) : [];
      const result: ScenarioResult = {
        scenario: scenario.name,
        ...(scenario.unit ? { unit: scenario.unit } : {}),
        gateway,
        ...(baseline
          ? {
              baseline,
              ratio: baseline.requestsPerSecond > 0 ? round(gateway.requestsPerSecond / baseline.requestsPerSecond, 3) : 0,
              roundRatios,
            }
          : {}),
        ...(peerRun && peerTally
          ? {
              peer: peerRun,
              peerRatio: peerRun.requestsPerSecond > 0 ? round(gateway.requestsPerSecond / peerRun.requestsPerSecond, 3) : 0,
              peerRoundRatios: ratiosPerRound(gatewayTally, peerTally),
            }
          : {}),
        ...(gatewayTally.searchLatency ? { searchLatency: gatewayTally.searchLatency } : {}),
        ...(gatewayTally.webhookDeliveries ? { webhookDeliveries: gatewayTally.webhookDeliveries } : {}),
        ...alone,
        serverTimings: gatewayTally.serverTimings,
        startedIdle,
      };
      results.push(result);
      progress(describeResult(result));
      // What is measured is kept even when undoing the scenario's set-up fails; the stack goes at the end anyway.
      await scenario.cleanUp?.({ gatewayUrl: target.gatewayUrl, prepared }).catch((error: unknown) =>
        progress(`${scenario.name}: could not undo its set-up: ${error instanceof Error ? error.message : String(error)}`),
      );
    }

    const processes = await peakMemory([
      ...target.processes,
      ...(redisGateways
        ? [
            { name: 'gateway (one Redis)', role: 'stack' as const, pid: redisGateways.standalone.pid },
            { name: 'gateway (Redis Cluster)', role: 'stack' as const, pid: redisGateways.cluster.pid },
          ]
        : []),
      ...(bare ? [{ name: 'bare Fastify server', role: 'baseline' as const, pid: bare.pid }] : []),
      ...(argon2 ? [{ name: argon2Name(target), role: 'baseline' as const, pid: argon2.pid }] : []),
      ...(peer ? [peerProcess(peer)] : []),
      harness,
      ...receiversProcess,
      { name: 'load generator (autocannon)', role: 'harness', pid: loader.pid },
    ]);
    return {
      startedAt,
      finishedAt: new Date().toISOString(),
      machine: machineInfo(ticksPerSecond),
      settings: {
        durationSeconds: options.durationSeconds,
        rounds: options.rounds,
        warmupSeconds: options.warmupSeconds,
        connections: options.connections,
        users: options.users,
        posts: options.posts,
        createRate: options.createRate,
        ...(receivers ? { webhookEvents: options.webhookEvents, webhookRate: options.webhookRate } : {}),
        threadPoolSize: target.threadPoolSize,
        argon2: target.argon2,
      },
      target: { kind: target.kind, gatewayUrl: target.gatewayUrl },
      scenarios: results,
      processes,
      targets: evaluateTargets(results, processes, options.createRate),
    };
  } finally {
    await Promise.allSettled([bare?.stop(), argon2?.stop(), peer?.stop(), loader?.stop(), redisGateways?.stop(), receivers?.stop()]);
    if (target.kind === 'external' && seeded) {
      await removeSeed(target, seeded).catch((error: unknown) =>
        progress(`could not remove the seeded accounts: ${String(error)}`),
      );
    }
    await target.close();
  }
}

/** The gateway's rate over another side's, round by round. */
function ratiosPerRound(gateway: Tally, other: Tally): number[] {
  return gateway.sliceRates.map((rate, index) => round(rate / (other.sliceRates[index] ?? Number.NaN), 3));
}

function peerProcess(peer: RunningPeer): WatchedProcess {
  return { name: 'Better Auth server', role: 'peer', pid: peer.pid };
}

function argon2Name(target: BenchTarget): string {
  return `argon2 rate (${target.threadPoolSize} in flight)`;
}

/** The baseline side of a scenario, or undefined for none. */
function baselineOf(
  scenario: Scenario,
  context: ScenarioContext,
  target: BenchTarget,
  tools: {
    bare: RunningBareServer | undefined;
    argon2: Argon2Rate | undefined;
    httpSide: (label: string, plan: LoadPlan, served: readonly WatchedProcess[]) => Side;
    /** me-cluster's gateway on one Redis and the stack's services behind it, when started. */
    oneRedisGateway: readonly WatchedProcess[] | undefined;
  },
): Side | undefined {
  const plan = scenario.baseline;
  if (plan.kind === 'none') return undefined;
  if (plan.kind === 'gateway') {
    if (plan.gateway === 'stack') return tools.httpSide(plan.label, plan.load(context), target.processes);
    if (!tools.oneRedisGateway) throw new Error(`${scenario.name} needs the gateways of redis-gateways.ts`);
    return tools.httpSide(plan.label, plan.load(context), tools.oneRedisGateway);
  }
  if (plan.kind === 'http') {
    if (!tools.bare) throw new Error('the bare server is not running');
    const served: WatchedProcess[] = [{ name: 'bare Fastify server', role: 'baseline', pid: tools.bare.pid }];
    return tools.httpSide(plan.label, plan.load(context), served);
  }
  const argon2 = tools.argon2;
  if (!argon2) throw new Error('the argon2 rate process is not running');
  return {
    label: `${plan.label} (${target.threadPoolSize} in flight)`,
    served: [{ name: argon2Name(target), role: 'baseline', pid: argon2.pid }],
    async run(durationSeconds) {
      const result = await argon2.run({ durationSeconds, concurrency: target.threadPoolSize, ...target.argon2 });
      const { durationSeconds: measured, latenciesMs } = result;
      return { durationSeconds: measured, latenciesMs, non2xx: 0, socketErrors: 0, timeouts: 0, statusCodes: {} };
    },
  };
}

async function peakMemory(processes: readonly WatchedProcess[]): Promise<ProcessMemory[]> {
  const measured: ProcessMemory[] = [];
  for (const p of processes) {
    const memory = await readMemoryUsage(p.pid);
    if (memory) measured.push({ ...p, peakRssBytes: memory.peakRssBytes });
  }
  return measured;
}

function waitForIdle(target: BenchTarget, ticksPerSecond: number, timeoutMs: number): Promise<boolean> {
  return target.processes.length === 0
    ? Promise.resolve(true)
    : waitUntilIdle(target.processes, { ticksPerSecond, timeoutMs });
}

function describeResult(result: ScenarioResult): string {
  const { requestsPerSecond, latency, errors } = result.gateway;
  const gateway = `${result.scenario}: gateway ${requestsPerSecond} req/s, p99 ${latency.p99Ms} ms, ${errors} errors`;
  const baseline = result.baseline ? `; baseline ${result.baseline.requestsPerSecond}/s; ratio ${result.ratio}` : '';
  const peer = result.peer ? `; peer ${result.peer.requestsPerSecond}/s; gateway/peer ${result.peerRatio}` : '';
  const search = result.searchLatency ? `; searchable p99 ${result.searchLatency.p99Ms} ms` : '';
  const underWrites = result.searchUnderWrites
    ? `; under writes: ${result.searchUnderWrites.searched} searches p99 ${result.searchUnderWrites.latency.p99Ms} ms, ${result.searchUnderWrites.created} posts created`
    : '';
  const hooks = result.webhookDeliveries;
  const webhooks = hooks
    ? `; ${hooks.delivered} of ${hooks.expected} messages delivered, delay p50 ${hooks.delay.p50Ms} ms p99 ${hooks.delay.p99Ms} ms max ${hooks.delay.maxMs} ms, ${hooks.deliveriesPerSecond}/s`
    : '';
  return gateway + baseline + peer + search + underWrites + webhooks;
}
