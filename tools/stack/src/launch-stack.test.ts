import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dropTestDatabase, testDatabaseAdminUrl } from '@latchkey/test-kit';
import { BackingServicesUnreachableError } from './backing-services';
import { launchStack, type LaunchStackOptions } from './launch-stack';
import { freePort } from './port-layout';
import type { StackEvent } from './stack-events';
import { migrationOrder, stackUnits, startOrder } from './stack-units';
import { UnitStartError } from './unit-process';

/**
 * launchStack against stand-ins for the units: each entry script records
 * its command and environment, logs pino-style lines like ours and behaves
 * as FAKE_* variables tell it. PostgreSQL, Redis and NATS are the machine's
 * (or DATABASE_URL / REDIS_URL / NATS_URL), as in the other integration tests.
 */
const fakeUnit = (name: string): string => `
const fs = require('node:fs');
const http = require('node:http');
const name = ${JSON.stringify(name)};
const command = process.argv[2] ?? 'serve';
const record = (entry) => fs.appendFileSync(process.env.FAKE_RECORD, JSON.stringify({ unit: name, ...entry }) + '\\n');
const log = (fields) => console.log(JSON.stringify({ level: 'info', service: name, ...fields }));
record({ command, env: process.env });
log({ msg: 'starting', command });
if (process.env.FAKE_FAIL === name + ' ' + command) {
  console.error('boom in ' + name + ' ' + command);
  process.exit(3);
}
if (command === 'migrate') process.exit(0);
process.on('SIGTERM', () => {
  record({ command: 'stopped' });
  process.exit(0);
});
if (process.env.FAKE_CRASH === name) setTimeout(() => { log({ msg: 'lost the broker' }); process.exit(2); }, 300);
if (name === 'gateway') {
  const server = http.createServer((_, res) => res.end('ok'));
  server.listen(Number(process.env.GATEWAY_PORT), '127.0.0.1', () => {
    const port = server.address().port;
    log({ msg: 'ready', url: 'http://127.0.0.1:' + port, port });
  });
} else {
  // Stands in for a unit that bound the ports it was given, or ones the OS picked for 0.
  const bound = (variable) => Number(process.env[variable]) || 40000 + Math.floor(Math.random() * 20000);
  const ports = process.env.GRPC_PORT === undefined ? {} : { grpc_port: bound('GRPC_PORT') };
  setTimeout(() => log({ msg: 'ready', ...ports, metrics_port: bound('METRICS_PORT') }), 20);
  setInterval(() => undefined, 1000);
}
`;

interface Recorded {
  readonly unit: string;
  readonly command: string;
  readonly env?: Record<string, string>;
}


/** The order the real catalogue implies; the fake units below stand in for every entry. */
const migrating = migrationOrder(stackUnits).map((unit) => unit.name);
const starting = startOrder(stackUnits).map((unit) => unit.name);

describe('launchStack', () => {
  let root: string;
  let recordFile: string;
  let databaseName: string;
  let events: StackEvent[];

  const recorded = (): Recorded[] =>
    existsSync(recordFile)
      ? readFileSync(recordFile, 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as Recorded)
      : [];
  const options = (extra: Record<string, string> = {}): LaunchStackOptions => ({
    rootDir: root,
    randomPorts: true,
    databaseName,
    natsSubjectPrefix: 'stack_test',
    redisKeyPrefix: 'stack-test:',
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: process.env.DATABASE_URL,
      REDIS_URL: process.env.REDIS_URL,
      NATS_URL: process.env.NATS_URL,
      FAKE_RECORD: recordFile,
      LOG_LEVEL: 'debug',
      ...extra,
    },
    readyTimeoutMs: 10_000,
    onEvent: (event) => events.push(event),
  });

  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'launch-stack-'));
    recordFile = path.join(root, 'record.jsonl');
    databaseName = `t_stack_${randomBytes(5).toString('hex')}`;
    events = [];
    for (const unit of stackUnits) {
      mkdirSync(path.join(root, path.dirname(unit.entry)), { recursive: true });
      writeFileSync(path.join(root, unit.entry), fakeUnit(unit.name));
    }
  });
  afterEach(async () => {
    await dropTestDatabase(testDatabaseAdminUrl(), databaseName);
    rmSync(root, { recursive: true, force: true });
  });

  it('creates the database, migrates, starts every unit wired to the others and stops the gateway first', async () => {
    const stack = await launchStack(options());
    try {
      expect(recorded().map((entry) => `${entry.unit} ${entry.command}`)).toEqual([
        ...migrating.map((name) => `${name} migrate`),
        ...starting.map((name) => `${name} serve`),
      ]);
      expect(starting.at(-1)).toBe('gateway');
      expect(events.filter((event) => event.type === 'ready').map((event) => event.unit)).toEqual(starting);
      expect(events).toContainEqual({ type: 'database-created', database: databaseName });

      const env = (unit: string): Record<string, string> =>
        recorded().find((entry) => entry.unit === unit && entry.command === 'serve')?.env ?? {};
      // Ports the OS picks: each unit is given 0 and reports what it bound.
      expect(env('identity').GRPC_PORT).toBe('0');
      const identityPorts = stack.processes.get('identity')?.ports ?? {};
      expect(identityPorts.GRPC_PORT).toBeGreaterThan(0);
      expect(env('gateway').IDENTITY_GRPC_ADDRESS).toBe(`127.0.0.1:${identityPorts.GRPC_PORT}`);
      expect(env('oauth').IDENTITY_GRPC_ADDRESS).toBe(`127.0.0.1:${identityPorts.GRPC_PORT}`);
      expect(env('jobs').POSTS_GRPC_ADDRESS).toBe(`127.0.0.1:${stack.processes.get('posts')?.ports.GRPC_PORT}`);

      expect(stack.gatewayUrl).toBe(`http://127.0.0.1:${stack.processes.get('gateway')?.ports.GATEWAY_PORT}`);
      expect(await (await fetch(stack.gatewayUrl)).text()).toBe('ok');

      for (const unit of starting) {
        // Each unit on PostgreSQL as a role of its own; the gateway, which has no database, without one.
        const database = stackUnits.find((candidate) => candidate.name === unit)?.database;
        const url = env(unit).DATABASE_URL;
        expect({ unit, user: url && new URL(url).username, database: url && new URL(url).pathname }).toEqual(
          database ? { unit, user: `${databaseName}_${unit}`, database: `/${databaseName}` } : { unit, user: undefined, database: undefined },
        );
        if (url) expect(stack.databaseUrls[unit]).toBe(url);
        expect(env(unit)).toMatchObject({
          PUBLIC_APP_URL: 'http://app.localhost',
          SMTP_URL: stack.smtp?.url,
          S3_ENDPOINT: stack.s3?.endpoint,
          S3_BUCKET: 'latchkey-posts',
          S3_FORCE_PATH_STYLE: 'true',
          NATS_SUBJECT_PREFIX: 'stack_test',
          REDIS_KEY_PREFIX: 'stack-test:',
          COOKIE_SECURE: 'false',
          AUTH_EMAIL_VERIFICATION_TOKEN_EXPIRE_TIME: '60',
          LOG_LEVEL: 'debug',
          FAKE_RECORD: recordFile,
        });
        expect(Buffer.from(env(unit).TOTP_ENCRYPTION_KEY ?? '', 'base64')).toHaveLength(32);
      }
      expect(stack.env.SMTP_URL).toBe(stack.smtp?.url);
      expect(stack.processes.get('gateway')?.output()).toContain('"msg":"ready"');
      expect(existsSync(path.join(root, '.data', 'stack-secrets.json'))).toBe(true);
      expect(existsSync(path.join(root, '.data', 'mail'))).toBe(true);
    } finally {
      await stack.stop();
    }
    expect(recorded().filter((entry) => entry.command === 'stopped').map((entry) => entry.unit)).toEqual(
      [...starting].reverse(),
    );
    expect(events.filter((event) => event.type === 'stopped')).toHaveLength(starting.length);
    expect(events.filter((event) => event.type === 'exited')).toEqual([]);
    await expect(fetch(stack.gatewayUrl)).rejects.toThrow();
  });

  it('runs only the units asked for, with the addresses the environment gives for the others', async () => {
    const stack = await launchStack({ ...options({ IDENTITY_GRPC_ADDRESS: '127.0.0.1:1' }), units: ['gateway'] });
    await stack.stop();
    expect(recorded().map((entry) => `${entry.unit} ${entry.command}`)).toEqual(['gateway serve', 'gateway stopped']);
    expect(recorded()[0]?.env?.IDENTITY_GRPC_ADDRESS).toBe('127.0.0.1:1');
  });

  it('keeps SMTP_URL and S3_ENDPOINT when they are given and starts no embedded server', async () => {
    const stack = await launchStack({
      ...options({ SMTP_URL: 'smtp://127.0.0.1:2525', S3_ENDPOINT: 'http://127.0.0.1:9000' }),
      units: ['jobs'],
    });
    await stack.stop();
    expect(stack.smtp).toBeUndefined();
    expect(stack.s3).toBeUndefined();
    expect(stack.env).toMatchObject({ SMTP_URL: 'smtp://127.0.0.1:2525', S3_ENDPOINT: 'http://127.0.0.1:9000' });
    expect(stack.env.S3_ACCESS_KEY_ID).toBeUndefined();
  });

  it('fails with the output of a migration that fails, and starts nothing', async () => {
    const launching = launchStack(options({ FAKE_FAIL: 'jobs migrate' }));
    await expect(launching).rejects.toThrow(UnitStartError);
    await expect(launching).rejects.toThrow(/jobs migrate exited with code 3[^]*boom in jobs migrate/);
    expect(recorded().map((entry) => `${entry.unit} ${entry.command}`)).toEqual(migrating.map((name) => `${name} migrate`));
  });

  it('reports a unit that exits before it is ready, stops the ones that started and rejects', async () => {
    const launching = launchStack(options({ FAKE_FAIL: 'jobs serve' }));
    await expect(launching).rejects.toThrow('jobs exited with code 3 before it was ready');
    expect(events).toContainEqual({
      type: 'exited',
      unit: 'jobs',
      phase: 'starting',
      exit: { code: 3, signal: null },
      lastLines: expect.arrayContaining(['boom in jobs serve']),
    });
    const beforeJobs = starting.slice(0, starting.indexOf('jobs'));
    expect(recorded().map((entry) => `${entry.unit} ${entry.command}`)).toEqual([
      ...migrating.map((name) => `${name} migrate`),
      ...beforeJobs.map((name) => `${name} serve`),
      'jobs serve',
      ...[...beforeJobs].reverse().map((name) => `${name} stopped`),
    ]);
  });

  it('reports a unit that exits while running', async () => {
    const stack = await launchStack({ ...options({ FAKE_CRASH: 'jobs' }), units: ['jobs'] });
    try {
      await new Promise<void>((resolve) => {
        const poll = setInterval(() => {
          if (events.some((event) => event.type === 'exited')) {
            clearInterval(poll);
            resolve();
          }
        }, 20);
      });
      expect(events.find((event) => event.type === 'exited')).toMatchObject({
        unit: 'jobs',
        phase: 'running',
        exit: { code: 2 },
        lastLines: expect.arrayContaining([expect.stringContaining('lost the broker')]),
      });
    } finally {
      await stack.stop();
    }
  });

  it('stops what it started when aborted while starting', async () => {
    const controller = new AbortController();
    const launching = launchStack({
      ...options(),
      signal: controller.signal,
      onEvent: (event) => {
        events.push(event);
        if (event.type === 'ready' && event.unit === 'identity') controller.abort();
      },
    });
    await expect(launching).rejects.toThrow('stack launch aborted');
    expect(recorded().map((entry) => `${entry.unit} ${entry.command}`)).toEqual([
      ...migrating.map((name) => `${name} migrate`),
      'identity serve',
      'identity stopped',
    ]);
  });

  it('names an unreachable backing service before starting anything', async () => {
    const closedPort = await freePort();
    const launching = launchStack(options({ REDIS_URL: `redis://127.0.0.1:${closedPort}` }));
    await expect(launching).rejects.toThrow(BackingServicesUnreachableError);
    await expect(launching).rejects.toThrow(`redis at 127.0.0.1:${closedPort} (REDIS_URL)`);
    expect(recorded()).toEqual([]);
  });

  it('refuses to start units that are not built', async () => {
    rmSync(path.join(root, 'gateway'), { recursive: true });
    await expect(launchStack(options())).rejects.toThrow('not built: gateway/dist/main.js (run `pnpm build`)');
  });
});
