import path from 'node:path';
import { parseArgs } from 'node:util';
import { defaultBenchOptions, defaultRounds, defaultWarmupSeconds } from './run-bench';
import { isScenarioName, optInScenarios, scenarioNames, type ScenarioName } from './scenarios';

export const usage = `usage: pnpm bench [options]

Starts a throwaway stack (or uses BENCH_URL's), seeds it over HTTP, and
measures each scenario against its bare baseline in the same run.

  --duration <s>       seconds per measured run (default ${defaultBenchOptions.durationSeconds})
  --rounds <n>         slices per scenario, alternating gateway and baseline (default: one per 2 s)
  --warmup <s>         seconds of warm-up per side before the slices (default: a fifth of --duration, 1-3)
  --scenarios <a,b>    some of ${scenarioNames.join(', ')} (default all but ${optInScenarios.join(', ')}:
                       a Redis Cluster and a second gateway on it; minutes of webhook deliveries:
                       docs/performance.md)
  --connections <n>    concurrent connections (default ${defaultBenchOptions.connections})
  --users <n>          seeded users, whose sessions and logins rotate (default ${defaultBenchOptions.users})
  --posts <n>          seeded posts, whose ids rotate (default ${defaultBenchOptions.posts})
  --search-posts <n>   posts of the search scenario's corpus (default ${defaultBenchOptions.searchPosts})
  --org-members <n>    members of the org-members scenario's organisation (default ${defaultBenchOptions.orgMembers})
  --webhook-events <n> events the webhooks scenario causes, each a message to 10 endpoints (default ${defaultBenchOptions.webhookEvents})
  --webhook-rate <n>   events per second of the webhooks scenario (default ${defaultBenchOptions.webhookRate})
  --cpu-prof <dir>     write each unit's CPU profile of each measured gateway run into <dir>
  --results-dir <dir>  where <timestamp>.json goes (default bench/results)
  --json-only          print the JSON report instead of the table and progress
  -h, --help

See tools/bench/README.md and docs/performance.md.
`;

export interface CliOptions {
  readonly help: boolean;
  readonly jsonOnly: boolean;
  readonly durationSeconds: number;
  readonly rounds: number;
  readonly warmupSeconds: number;
  readonly scenarios: readonly ScenarioName[];
  readonly connections: number;
  readonly users: number;
  readonly posts: number;
  readonly searchPosts: number;
  readonly orgMembers: number;
  readonly webhookEvents: number;
  readonly webhookRate: number;
  readonly cpuProfileDir: string | undefined;
  readonly resultsDir: string;
}

function positive(name: string, value: string | undefined, fallback: number, integer: boolean): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0 || (integer && !Number.isInteger(parsed))) {
    throw new Error(`--${name}: expected a positive ${integer ? 'integer' : 'number'}, got "${value}"`);
  }
  return parsed;
}

/** The command line of `pnpm bench`; throws naming the bad option. */
export function parseCliOptions(args: readonly string[], defaultResultsDir: string): CliOptions {
  const { values } = parseArgs({
    args: [...args],
    options: {
      duration: { type: 'string' },
      warmup: { type: 'string' },
      rounds: { type: 'string' },
      scenarios: { type: 'string' },
      connections: { type: 'string' },
      users: { type: 'string' },
      posts: { type: 'string' },
      'search-posts': { type: 'string' },
      'org-members': { type: 'string' },
      'webhook-events': { type: 'string' },
      'webhook-rate': { type: 'string' },
      'cpu-prof': { type: 'string' },
      'results-dir': { type: 'string' },
      'json-only': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  const durationSeconds = positive('duration', values.duration, defaultBenchOptions.durationSeconds, false);
  const requested = values.scenarios?.split(',').map((name) => name.trim()).filter((name) => name.length > 0);
  const unknown = requested?.filter((name) => !isScenarioName(name)) ?? [];
  if (unknown.length > 0) throw new Error(`--scenarios: unknown ${unknown.join(', ')} (known: ${scenarioNames.join(', ')})`);
  const scenarios = requested
    ? scenarioNames.filter((name) => requested.includes(name))
    : scenarioNames.filter((name) => !optInScenarios.includes(name));
  if (scenarios.length === 0) throw new Error('--scenarios: name at least one scenario');
  const warmupSeconds =
    values.warmup === '0' ? 0 : positive('warmup', values.warmup, defaultWarmupSeconds(durationSeconds), false);
  return {
    help: values.help === true,
    jsonOnly: values['json-only'] === true,
    durationSeconds,
    rounds: positive('rounds', values.rounds, defaultRounds(durationSeconds), true),
    warmupSeconds,
    scenarios,
    connections: positive('connections', values.connections, defaultBenchOptions.connections, true),
    users: positive('users', values.users, defaultBenchOptions.users, true),
    posts: positive('posts', values.posts, defaultBenchOptions.posts, true),
    searchPosts: positive('search-posts', values['search-posts'], defaultBenchOptions.searchPosts, true),
    orgMembers: positive('org-members', values['org-members'], defaultBenchOptions.orgMembers, true),
    webhookEvents: positive('webhook-events', values['webhook-events'], defaultBenchOptions.webhookEvents, true),
    webhookRate: positive('webhook-rate', values['webhook-rate'], defaultBenchOptions.webhookRate, false),
    cpuProfileDir: values['cpu-prof'] === undefined ? undefined : path.resolve(values['cpu-prof']),
    resultsDir: path.resolve(values['results-dir'] ?? defaultResultsDir),
  };
}
