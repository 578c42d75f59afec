import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { LatencySummary } from './latency-stats';
import type { SearchLatency } from './load-messages';
import type { MemberListing } from './member-listing';
import type { WatchedProcess } from './process-usage';
import type { ScenarioName } from './scenarios';
import type { SearchQuality } from './search-quality';
import type { SearchUnderWrites } from './search-under-writes';
import type { OperationTiming } from './service-metrics';
import type { WebhookDeliveries } from './webhook-deliveries';

/** One measured run: the gateway's route or its baseline. */
export interface RunMeasurement {
  readonly label: string;
  readonly durationSeconds: number;
  /** Responses (or, for the argon2 baseline, verifications). */
  readonly requests: number;
  readonly requestsPerSecond: number;
  readonly latency: LatencySummary;
  /** non2xx + socketErrors (which include timeouts). */
  readonly errors: number;
  readonly non2xx: number;
  readonly socketErrors: number;
  readonly timeouts: number;
  readonly statusCodes: Readonly<Record<string, number>>;
  /** CPU time of the measured side per request: the stack's processes summed, or the baseline process. */
  readonly cpuMsPerRequest: number;
  /** CPU milliseconds of every watched process during the run, the harness's included. */
  readonly cpuMsByProcess: Readonly<Record<string, number>>;
  /** The load generator's CPU use in percent of one core; near 100 it, not the server, sets the pace. */
  readonly loaderCpuPercent?: number;
}

export interface ScenarioResult {
  readonly scenario: ScenarioName;
  /** The unit that answered `gateway`'s requests, when not the gateway. */
  readonly unit?: string;
  readonly gateway: RunMeasurement;
  readonly baseline?: RunMeasurement;
  /** Gateway requests per second over the baseline's. */
  readonly ratio?: number;
  /** The same ratio per round (run-bench.ts): their spread shows how noisy the machine was. */
  readonly roundRatios?: readonly number[];
  /** The peer's answer to the same request (Better Auth), in the same rounds. */
  readonly peer?: RunMeasurement;
  /** Gateway requests per second over the peer's. */
  readonly peerRatio?: number;
  readonly peerRoundRatios?: readonly number[];
  /** post-create: from each 201 until search returns the post. */
  readonly searchLatency?: SearchLatency;
  /** search: the costliest queries alone, and whether old best matches make the first page. */
  readonly searchQuality?: SearchQuality;
  /** search: the costliest queries at a fixed rate, open-loop, while posts are created. */
  readonly searchUnderWrites?: SearchUnderWrites;
  /** org-members: every page of a large organisation's members, several passes, one request at a time. */
  readonly memberListing?: MemberListing;
  /** scim-users: every page of a large SCIM directory, several passes, one request at a time. */
  readonly scimListing?: MemberListing;
  /** webhooks: from each event to its message's first receipt, at the live endpoints, one endpoint down. */
  readonly webhookDeliveries?: WebhookDeliveries;
  /** Per-unit time during the gateway run (service-metrics.ts). */
  readonly serverTimings: readonly OperationTiming[];
  /** Whether the stack had gone quiet before the scenario started. */
  readonly startedIdle: boolean;
}

export interface ProcessMemory extends WatchedProcess {
  readonly peakRssBytes: number;
}

export interface TargetCheck {
  readonly name: string;
  readonly requirement: string;
  readonly actual: string;
  readonly met: boolean;
}

export interface MachineInfo {
  readonly cpus: number;
  readonly cpuModel: string;
  readonly node: string;
  readonly platform: string;
  readonly totalMemoryBytes: number;
  readonly clockTicksPerSecond: number;
}

export interface BenchSettings {
  readonly durationSeconds: number;
  readonly rounds: number;
  readonly warmupSeconds: number;
  readonly connections: number;
  readonly users: number;
  readonly posts: number;
  readonly createRate: number;
  /** When the webhooks scenario ran: its events and their rate. */
  readonly webhookEvents?: number;
  readonly webhookRate?: number;
  readonly threadPoolSize: number;
  readonly argon2: { readonly memoryKiB: number; readonly timeCost: number; readonly parallelism: number };
}

export interface BenchReport {
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly machine: MachineInfo;
  readonly settings: BenchSettings;
  readonly target: { readonly kind: 'launched' | 'external'; readonly gatewayUrl: string };
  readonly scenarios: readonly ScenarioResult[];
  readonly processes: readonly ProcessMemory[];
  readonly targets: readonly TargetCheck[];
}

const MB = 1024 * 1024;

const fixed = (value: number, digits: number): string => value.toFixed(digits);

/** A Markdown table whose columns from `firstNumeric` on are numbers, aligned right. */
function table(header: readonly string[], rows: readonly (readonly string[])[], firstNumeric: number): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  const rule = `|${header.map((_, index) => (index < firstNumeric ? '---' : '---:')).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

function measurementRow(scenario: string, system: string, run: RunMeasurement, ratio: string, peerRatio = ''): string[] {
  return [
    scenario,
    system,
    fixed(run.requestsPerSecond, 1),
    fixed(run.latency.p50Ms, 2),
    fixed(run.latency.p99Ms, 2),
    String(run.errors),
    fixed(run.cpuMsPerRequest, 3),
    ratio,
    peerRatio,
  ];
}

/** A ratio, with the range of its per-round values when there were several rounds. */
function ratioCell(ratio: number | undefined, rounds: readonly number[] = []): string {
  if (ratio === undefined) return '';
  if (rounds.length < 2) return fixed(ratio, 3);
  return `${fixed(ratio, 3)} (${fixed(Math.min(...rounds), 2)}–${fixed(Math.max(...rounds), 2)})`;
}

/**
 * The scenario table: a row for the gateway, one for its baseline (the
 * floor) and one for the peer. "ratio" is over the floor, "× peer" the
 * gateway's rate over the peer's.
 */
export function formatScenarioTable(results: readonly ScenarioResult[]): string {
  const rows: string[][] = [];
  for (const result of results) {
    rows.push(
      measurementRow(
        result.scenario,
        `${result.unit ?? 'gateway'} ${result.gateway.label}`,
        result.gateway,
        ratioCell(result.ratio, result.roundRatios),
        ratioCell(result.peerRatio, result.peerRoundRatios),
      ),
    );
    if (result.baseline) rows.push(measurementRow('', result.baseline.label, result.baseline, '1'));
    if (result.peer) {
      const overFloor = result.baseline && result.baseline.requestsPerSecond > 0 ? result.peer.requestsPerSecond / result.baseline.requestsPerSecond : undefined;
      rows.push(measurementRow('', `peer ${result.peer.label}`, result.peer, ratioCell(overFloor), '1'));
    }
  }
  return table(['scenario', 'system', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'CPU ms/req', 'ratio', '× peer'], rows, 2);
}

/**
 * The busiest the load generator was: near 100 % of a core, autocannon and
 * not the server set the pace, and the ratios of that scenario understate.
 */
export function formatLoaderNote(results: readonly ScenarioResult[]): string | undefined {
  const runs = results.flatMap((result) =>
    [result.gateway, result.baseline, result.peer].flatMap((run) =>
      run?.loaderCpuPercent === undefined ? [] : [{ scenario: result.scenario, run, percent: run.loaderCpuPercent }],
    ),
  );
  const busiest = runs.sort((a, b) => b.percent - a.percent)[0];
  if (!busiest) return undefined;
  return `Load generator: at most ${fixed(busiest.percent, 0)} % of one core (${busiest.scenario}, ${busiest.run.label}).`;
}

export function formatSearchLatency(results: readonly ScenarioResult[]): string | undefined {
  const create = results.find((result) => result.searchLatency);
  const latency = create?.searchLatency;
  if (!create || !latency) return undefined;
  return table(
    ['created', 'creates/s', 'found', 'not found', 'searchable p50 ms', 'p99 ms', 'max ms', 'search polls'],
    [
      [
        String(latency.created),
        fixed(latency.created / create.gateway.durationSeconds, 1),
        String(latency.count),
        String(latency.notFound),
        fixed(latency.p50Ms, 1),
        fixed(latency.p99Ms, 1),
        fixed(latency.maxMs, 1),
        String(latency.searches),
      ],
    ],
    0,
  );
}

/**
 * webhooks: the delay of each message to a live endpoint, the deliveries'
 * rate, and the CPU time each process spent per delivery over the whole
 * run (the events' requests and the deliveries they set off).
 */
export function formatWebhookDeliveries(results: readonly ScenarioResult[]): string | undefined {
  const result = results.find((candidate) => candidate.webhookDeliveries);
  const hooks = result?.webhookDeliveries;
  if (!result || !hooks) return undefined;
  const deliveries = table(
    ['events', 'events/s', 'endpoints (live + down)', 'messages to live', 'delivered', 'repeats', 'delay p50 ms', 'p99 ms', 'max ms', 'deliveries/s', 'down endpoint attempts'],
    [
      [
        String(hooks.events),
        fixed(result.gateway.requestsPerSecond, 1),
        `${hooks.liveEndpoints} + ${hooks.downEndpoints}`,
        String(hooks.expected),
        String(hooks.delivered),
        String(hooks.repeats),
        fixed(hooks.delay.p50Ms, 1),
        fixed(hooks.delay.p99Ms, 1),
        fixed(hooks.delay.maxMs, 1),
        fixed(hooks.deliveriesPerSecond, 1),
        String(hooks.downAttempts),
      ],
    ],
    0,
  );
  const cpu = table(
    ['process, events and deliveries', 'CPU s', 'CPU ms per delivery'],
    Object.entries(result.gateway.cpuMsByProcess).map(([name, ms]) => [
      name,
      fixed(ms / 1000, 1),
      hooks.delivered > 0 ? fixed(ms / hooks.delivered, 3) : '',
    ]),
    1,
  );
  return `${deliveries}\n\n${cpu}`;
}

/** search: each costliest query alone, and where each old best match landed. */
export function formatSearchQuality(results: readonly ScenarioResult[]): string | undefined {
  const quality = results.find((result) => result.searchQuality)?.searchQuality;
  if (!quality) return undefined;
  const latency = table(
    ['search query, alone', 'runs', 'p50 ms', 'p99 ms', 'max ms'],
    [
      ...quality.perQuery.map(({ query, latency: l }) => [`\`${query}\``, String(l.count), fixed(l.p50Ms, 1), fixed(l.p99Ms, 1), fixed(l.maxMs, 1)]),
      ['all', String(quality.sequential.count), fixed(quality.sequential.p50Ms, 1), fixed(quality.sequential.p99Ms, 1), fixed(quality.sequential.maxMs, 1)],
    ],
    1,
  );
  const relevance = table(
    ['query whose best match is the oldest post', 'its place on page 1'],
    quality.relevance.map(({ query, position }) => [`\`${query}\``, position === null ? 'not there' : String(position)]),
    1,
  );
  return `${latency}\n\n${relevance}`;
}

/** The errors and what they were, e.g. `27 (503: 20, timeout: 7)`. */
function describeErrors(errors: number, statusCodes: Readonly<Record<string, number>>): string {
  const kinds = Object.entries(statusCodes).filter(([status]) => !/^2\d\d$/.test(status));
  return errors === 0 || kinds.length === 0 ? String(errors) : `${errors} (${kinds.map(([status, count]) => `${status}: ${count}`).join(', ')})`;
}

/** search: the costliest queries at a fixed rate while posts are created, what each rate reached, and the searches' latency. */
export function formatSearchUnderWrites(results: readonly ScenarioResult[]): string | undefined {
  const phase = results.find((result) => result.searchUnderWrites)?.searchUnderWrites;
  if (!phase) return undefined;
  const perSecond = (count: number): string => fixed(count / phase.durationSeconds, 1);
  return table(
    ['search under writes', 'searches', 'searches/s', 'p50 ms', 'p99 ms', 'max ms', 'search errors', 'created', 'creates/s', 'create errors'],
    [
      [
        `${phase.searchRate} searches/s, ${phase.createRate} creates/s, ${phase.durationSeconds} s`,
        String(phase.searched),
        perSecond(phase.searched),
        fixed(phase.latency.p50Ms, 1),
        fixed(phase.latency.p99Ms, 1),
        fixed(phase.latency.maxMs, 1),
        describeErrors(phase.searchErrors, phase.searchStatusCodes),
        String(phase.created),
        perSecond(phase.created),
        describeErrors(phase.createErrors, phase.createStatusCodes),
      ],
    ],
    1,
  );
}

/** org-members and scim-users: the large organisation's member pages and SCIM directory pages, each alone. */
export function formatMemberListing(results: readonly ScenarioResult[]): string | undefined {
  const listings = [
    ['GET /v0/orgs/{id}/members?limit=100', results.find((result) => result.memberListing)?.memberListing],
    ['GET /scim/v2/Users?count=100', results.find((result) => result.scimListing)?.scimListing],
  ] as const;
  const rows = listings.flatMap(([route, listing]) =>
    listing
      ? [
          [
            route,
            String(listing.members),
            String(listing.pagesPerPass),
            String(listing.passes),
            String(listing.incompletePasses),
            fixed(listing.latency.p50Ms, 1),
            fixed(listing.latency.p99Ms, 1),
            fixed(listing.latency.maxMs, 1),
          ],
        ]
      : [],
  );
  if (rows.length === 0) return undefined;
  return table(['member pages, alone', 'members', 'pages per pass', 'passes', 'incomplete passes', 'p50 ms', 'p99 ms', 'max ms'], rows, 1);
}

export function formatProcessTable(processes: readonly ProcessMemory[]): string {
  return table(
    ['process', 'role', 'peak RSS MB'],
    processes.map((p) => [p.name, p.role, fixed(p.peakRssBytes / MB, 1)]),
    2,
  );
}

/** Where the gateway run's time went: per unit and operation, calls per request and mean time. */
export function formatServerTimings(results: readonly ScenarioResult[]): string | undefined {
  const rows: string[][] = [];
  for (const result of results) {
    const requests = result.gateway.requests;
    for (const timing of result.serverTimings) {
      if (timing.calls < requests * 0.05) continue;
      rows.push([result.scenario, timing.unit, timing.operation, fixed(timing.calls / requests, 2), fixed(timing.meanMs, 3)]);
    }
  }
  if (rows.length === 0) return undefined;
  return table(['scenario', 'unit', 'operation', 'calls/req', 'mean ms'], rows, 3);
}

export function formatTargets(targets: readonly TargetCheck[]): string {
  return targets.map((t) => `- ${t.met ? 'met   ' : 'MISSED'} ${t.name}: ${t.requirement}; measured ${t.actual}`).join('\n');
}

export function formatMachine(report: Pick<BenchReport, 'machine' | 'startedAt' | 'settings'>): string {
  const { machine, settings } = report;
  return [
    `${report.startedAt}: ${machine.cpus} CPUs (${machine.cpuModel}), ` +
      `${fixed(machine.totalMemoryBytes / 1024 ** 3, 1)} GiB, Node ${machine.node}, ${machine.platform}.`,
    `${settings.durationSeconds} s per side in ${settings.rounds} alternating rounds after ${settings.warmupSeconds} s of warm-up, ` +
      `${settings.connections} connections, ` +
      `${settings.users} users, ${settings.posts} posts, post-create at ${settings.createRate}/s, ` +
      `Argon2id m=${settings.argon2.memoryKiB} KiB t=${settings.argon2.timeCost} p=${settings.argon2.parallelism}, ` +
      `${settings.threadPoolSize} libuv threads.`,
  ].join('\n');
}

/** The whole report as Markdown, as printed and as docs/performance.md keeps it. */
export function formatReport(report: BenchReport): string {
  const sections = [
    formatMachine(report),
    formatScenarioTable(report.scenarios),
    formatLoaderNote(report.scenarios),
    formatSearchLatency(report.scenarios),
    formatSearchQuality(report.scenarios),
    formatSearchUnderWrites(report.scenarios),
    formatWebhookDeliveries(report.scenarios),
    formatMemberListing(report.scenarios),
    formatServerTimings(report.scenarios),
    formatProcessTable(report.processes),
    formatTargets(report.targets),
  ];
  return sections.filter((section): section is string => section !== undefined).join('\n\n');
}

/** Writes `<dir>/<startedAt>.json` (colons as dashes, for every file system) and answers its path. */
export async function writeReport(report: BenchReport, directory: string): Promise<string> {
  await mkdir(directory, { recursive: true });
  const file = path.join(directory, `${report.startedAt.replace(/:/g, '-')}.json`);
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}
