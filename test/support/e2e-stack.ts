import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect } from 'nats';
import pg from 'pg';
import { launchStack, type RunningStack } from '@latchkey/stack';
import { dropTestDatabase, testDatabaseAdminUrl, testNatsUrl, testRedisUrl, uniqueName } from '@latchkey/test-kit';
import { topology } from '@latchkey/job-streams';
import { sharedTopology, topologyEnv, type TopologyAddresses } from './topology';

export interface E2eStack extends RunningStack {
  /** Every line every process wrote so far, for checks that secrets never reach logs. */
  allOutput(): string;
  /** Where `unit` serves /metrics, /healthz and /readyz (its METRICS_PORT). */
  operationsUrl(unit: string): string;
  /** Stops the processes and removes the database, streams and files of this stack. */
  destroy(): Promise<void>;
}

/**
 * The whole system as `pnpm stack` runs it, isolated for one test file: its
 * own database, Redis key prefix, NATS subjects, random ports, mail and S3
 * folders. Needs `pnpm build` first (the test command does it).
 */
export async function startE2eStack(
  label: string,
  env: Record<string, string> = {},
  options: {
    /** Variables for one unit only, such as its certificate files. */
    readonly unitEnv?: (unit: string) => Record<string, string>;
    /** The subject prefix, for a test with a NATS server of its own; default the stack's unique name. */
    readonly natsSubjectPrefix?: string;
    /**
     * Engines of a production topology (test/support/topology.ts) instead of
     * the machine's services; by default those of the topology project's
     * global setup when the test runs there (LATCHKEY_TOPOLOGY).
     */
    readonly topology?: TopologyAddresses | undefined;
  } = {},
): Promise<E2eStack> {
  const name = uniqueName(label);
  const scratch = mkdtempSync(path.join(tmpdir(), `latchkey-${label}-`));
  const addresses = options.topology ?? sharedTopology();
  const adminUrl = addresses?.databaseAdminUrl ?? testDatabaseAdminUrl();
  const natsUrl = addresses?.natsUrls ?? testNatsUrl();
  const databaseUrl = new URL(adminUrl);
  databaseUrl.pathname = `/${name}`;
  if (addresses) {
    // Created on the primary itself: PgBouncer reaches only databases that exist.
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`).finally(() => admin.end());
  }
  const stack = await launchStack({
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATABASE_URL: databaseUrl.toString(),
      REDIS_URL: testRedisUrl(),
      NATS_URL: natsUrl,
      OTEL_SDK_DISABLED: 'true',
      ...(addresses ? topologyEnv(addresses, name) : {}),
      ...env,
    },
    ...(options.unitEnv ? { unitEnv: options.unitEnv } : {}),
    randomPorts: true,
    databaseName: name,
    natsSubjectPrefix: options.natsSubjectPrefix ?? name,
    redisKeyPrefix: `${name}:`,
    mailDir: path.join(scratch, 'mail'),
    s3Dir: path.join(scratch, 's3'),
  });
  return {
    ...stack,
    allOutput: () => [...stack.processes.values()].map((p) => p.output()).join('\n'),
    operationsUrl(unit: string): string {
      const port = stack.processes.get(unit)?.ports.METRICS_PORT;
      if (port === undefined) throw new Error(`${unit} has no operations port`);
      return `http://127.0.0.1:${port}`;
    },
    async destroy() {
      await stack.stop();
      const nats = await connect({ servers: natsUrl.split(',') });
      const jsm = await nats.jetstreamManager();
      const names = topology(name);
      await jsm.streams.delete(names.jobsStream).catch(() => undefined);
      await jsm.streams.delete(names.deadLetterStream).catch(() => undefined);
      await jsm.streams.delete(names.eventsStream).catch(() => undefined);
      await nats.close();
      await dropTestDatabase(adminUrl, name);
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
