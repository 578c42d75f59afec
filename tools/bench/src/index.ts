export { runBench, defaultBenchOptions, defaultRounds, defaultWarmupSeconds, type BenchOptions } from './run-bench';
export { scenarios, scenarioNames, isScenarioName, type Scenario, type ScenarioName } from './scenarios';
export { openBenchTarget, type BenchTarget, type BenchTargetSettings } from './bench-stack';
export { seed, removeSeed, type Seed, type SeededUser } from './seed';
export { LoadGenerator } from './load-generator';
export type { LoadJob, LoadResult, RequestTemplate, SearchLatency } from './load-messages';
export { Argon2Rate, launchBareServer, type RunningBareServer } from './baselines/baseline-processes';
export {
  clockTicksPerSecond,
  readCpuTicks,
  readMemoryUsage,
  waitUntilIdle,
  type WatchedProcess,
} from './process-usage';
export { evaluateTargets, targets } from './targets';
export {
  formatReport,
  writeReport,
  type BenchReport,
  type ScenarioResult,
  type RunMeasurement,
  type ProcessMemory,
  type TargetCheck,
} from './report';
export { parseCliOptions, usage, type CliOptions } from './cli-options';
export { launchPeer, PEER_SESSION_COOKIE, type PeerUser, type RunningPeer } from './peer/peer-process';
export { measureSearchQuality, type SearchQuality } from './search-quality';
export { seedSearchCorpus, relevanceQueries, costlySearchQueries, type RelevanceProbe } from './search-corpus';
export { seedLargeOrganization, type LargeOrganization } from './large-organization';
export { measureMemberListing, type MemberListing } from './member-listing';
