import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { BackingServicesUnreachableError, findUnreachableBackingServices } from './backing-services';
import { ensureUnitRoles } from './database-roles';
import { ensureDatabase } from './ensure-database';
import { startMailCatcher, type CaughtMail, type MailCatcher } from './mail-catcher';
import {
  defaultFixedPortLayout,
  fixedPorts,
  preferredOrAnyPort,
  osAssignedPorts,
  type UnitPorts,
} from './port-layout';
import { startS3Store, type S3Store } from './s3-store';
import {
  databaseNameOf,
  databaseUrlFor,
  embeddedS3Variables,
  localDefaults,
  mergeEnvironment,
  readStackInputs,
  type Environment,
} from './stack-environment';
import type { StackEvent } from './stack-events';
import { readOrCreateStackSecrets, sealingPublicKeyOf } from './stack-secrets';
import { migrationOrder, selectUnits, stackUnits, startOrder, type StackUnit } from './stack-units';
import { describeExit, startUnitProcess, UnitStartError, type UnitProcess } from './unit-process';

/** tools/stack/src or tools/stack/dist → the repository root. */
export const repositoryRoot = path.resolve(__dirname, '..', '..', '..');

/** Ports of the embedded servers when ports are fixed, as mail catchers and s3rver commonly use. */
const preferredSmtpPort = 1025;
const preferredS3Port = 4569;

/**
 * PUBLIC_APP_URL when ports are random and none is given: the client app is
 * not this gateway, and `.localhost` names can never reach another host.
 */
const randomPortsAppUrl = 'http://app.localhost';

/** How long a unit may take to exit after SIGTERM before it gets SIGKILL. */
const stopGraceMs = 10_000;
const migrationTimeoutMs = 120_000;

/** The variables that name a unit's PostgreSQL: it gets each one that is set with its own role (databaseVariables in @latchkey/config). */
const databaseVariables = ['DATABASE_URL', 'DATABASE_SESSION_URL', 'DATABASE_READ_URL'] as const;

export interface LaunchStackOptions {
  /** The environment to start from; default process.env. Variables it sets win over the local defaults. */
  readonly env?: Environment;
  /**
   * Ports the OS picks for everything (tests, which may run in parallel).
   * Otherwise ports are fixed: the gateway on GATEWAY_PORT (8080), gRPC
   * services from `portBase` (50051), metrics from 9464, SMTP on 1025 and S3
   * on 4569 (when free).
   */
  readonly randomPorts?: boolean;
  readonly portBase?: number;
  /** Database the units use; default the one DATABASE_URL names, else `latchkey`. Created if missing. */
  readonly databaseName?: string;
  readonly natsSubjectPrefix?: string;
  readonly redisKeyPrefix?: string;
  /** Where the mail catcher saves mails; default `<repo>/.data/mail`. */
  readonly mailDir?: string;
  /** Where the embedded S3 store keeps objects; default `<repo>/.data/s3`. */
  readonly s3Dir?: string;
  /** When set, each process's output also goes to `<logDir>/<unit>.log`. */
  readonly logDir?: string;
  /** Variables for one unit only (its own certificate files, say), over everything else it gets. */
  readonly unitEnv?: (unit: string) => Environment;
  /** Units to run, by name; default all. Migrations run for these only. */
  readonly units?: readonly string[];
  /** Per process; default 30 s. */
  readonly readyTimeoutMs?: number;
  /** Repository whose built units run; default this one. `.data/` is under it. */
  readonly rootDir?: string;
  /** Aborting while the stack starts stops what has started and rejects (the signal's reason is the cause). */
  readonly signal?: AbortSignal;
  /** Called synchronously for every event; it must not throw. */
  readonly onEvent?: (event: StackEvent) => void;
}

export interface StackProcess {
  readonly name: string;
  readonly pid: number | undefined;
  readonly ports: UnitPorts;
  /** Its output so far (the last 2000 lines). */
  output(): string;
}

export interface StackMail {
  readonly url: string;
  readonly directory: string;
  /** Every mail so far, oldest first; grows as mails arrive. */
  readonly mails: readonly CaughtMail[];
  waitForMail(match: (mail: CaughtMail) => boolean, timeoutMs?: number): Promise<CaughtMail>;
}

export interface StackS3 {
  readonly endpoint: string;
  readonly bucket: string;
  readonly directory: string;
}

export interface RunningStack {
  /**
   * Where the gateway listens (`http://localhost:8080`, or
   * `http://127.0.0.1:<port>` with random ports). Without the gateway among
   * the units: where it would listen, or with random ports PUBLIC_APP_URL.
   */
  readonly gatewayUrl: string;
  /**
   * The environment every process got, before its own port variables, its
   * database role and the addresses of the units before it. Its
   * DATABASE_URL is the administrator's, which created the units' roles.
   */
  readonly env: Readonly<Record<string, string>>;
  /** The DATABASE_URL each unit on PostgreSQL got: its own role's. */
  readonly databaseUrls: Readonly<Record<string, string>>;
  /** The embedded mail catcher; absent when SMTP_URL was given. */
  readonly smtp?: StackMail;
  /** The embedded S3 store; absent when S3_ENDPOINT was given. */
  readonly s3?: StackS3;
  readonly processes: ReadonlyMap<string, StackProcess>;
  /**
   * Kills a unit with SIGKILL, as a crash or a lost node would, and starts
   * it again on the same ports with the same environment; resolves once it
   * is ready. Its `processes` entry then names the new process.
   */
  restart(unit: string): Promise<void>;
  /** SIGTERM to each unit (gateway first), SIGKILL after 10 s, then the embedded servers close. Idempotent. */
  stop(): Promise<void>;
}

const abortError = (signal: AbortSignal): Error => new Error('stack launch aborted', { cause: signal.reason });

/** Before each step that starts something: an aborted launch starts nothing more. */
function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError(signal);
}

/** `promise`, unless the signal aborts first: then an Error whose cause is the signal's reason. */
function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  let onAbort = (): void => undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(abortError(signal));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([promise, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}

function portVariables(ports: UnitPorts): Record<string, string> {
  return Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)]));
}

/**
 * Starts the local stack: creates the database, starts an SMTP catcher and
 * an S3 store unless SMTP_URL / S3_ENDPOINT are given, runs each unit's
 * migrations, then starts the units one after another, each once the one
 * before has logged `ready`. On any failure it stops what it started and
 * rejects; a unit that ends later is reported as an `exited` event.
 */
export async function launchStack(options: LaunchStackOptions = {}): Promise<RunningStack> {
  const emit = options.onEvent ?? ((): void => undefined);
  const { signal } = options;
  const given = options.env ?? process.env;
  const rootDir = options.rootDir ?? repositoryRoot;
  const dataDir = path.join(rootDir, '.data');
  const inputs = readStackInputs(given);
  const units = selectUnits(stackUnits, options.units);

  const unbuilt = units.filter((unit) => !existsSync(path.join(rootDir, unit.entry)));
  if (unbuilt.length > 0) {
    throw new Error(`not built: ${unbuilt.map((unit) => unit.entry).join(', ')} (run \`pnpm build\`)`);
  }

  const ports = options.randomPorts
    ? osAssignedPorts(units)
    : fixedPorts(units, {
        ...defaultFixedPortLayout,
        grpcPortBase: options.portBase ?? defaultFixedPortLayout.grpcPortBase,
        gatewayPort: inputs.GATEWAY_PORT,
      });
  // With fixed ports the gateway's URL is known now, and mail links may point
  // at it. With ports the OS picks, it is known only once the gateway is up,
  // so mail links point at a stand-in app origin unless PUBLIC_APP_URL is given.
  const fixedGatewayUrl = options.randomPorts ? undefined : `http://localhost:${inputs.GATEWAY_PORT}`;

  const secrets =
    inputs.TOTP_ENCRYPTION_KEY === undefined || inputs.AUTH_JWT_SIGNING_KEYS === undefined || inputs.WEBHOOK_SEALING_PUBLIC_KEY === undefined
      ? await readOrCreateStackSecrets(path.join(dataDir, 'stack-secrets.json'))
      : undefined;
  // The stack's key pair, both halves or neither: a public key given by the environment pairs with its own private key.
  const sealingKey = inputs.WEBHOOK_SEALING_PUBLIC_KEY === undefined ? secrets?.WEBHOOK_SEALING_PRIVATE_KEY : undefined;
  const defaults = localDefaults({
    publicAppUrl: inputs.PUBLIC_APP_URL ?? fixedGatewayUrl ?? randomPortsAppUrl,
    totpEncryptionKey: secrets?.TOTP_ENCRYPTION_KEY,
    signingKeys: secrets?.AUTH_JWT_SIGNING_KEYS,
    webhookSealingPublicKey: sealingKey && sealingPublicKeyOf(sealingKey),
    webhookSealingPrivateKey: sealingKey,
  });
  const databaseUrl = databaseUrlFor(inputs.DATABASE_URL, options.databaseName);
  const chosen: Record<string, string | undefined> = {
    DATABASE_URL: databaseUrl,
    NATS_SUBJECT_PREFIX: options.natsSubjectPrefix,
    REDIS_KEY_PREFIX: options.redisKeyPrefix,
  };

  const needed = units.flatMap((unit) => unit.backingServices);
  const unreachable = await findUnreachableBackingServices(needed, mergeEnvironment(given, defaults, chosen));
  if (unreachable.length > 0) throw new BackingServicesUnreachableError(unreachable);
  if (needed.includes('postgres') && (await unlessAborted(ensureDatabase(databaseUrl), signal))) {
    emit({ type: 'database-created', database: databaseNameOf(databaseUrl) });
  }
  // For every unit of the catalogue, not only those chosen: a unit's role may read a schema another's owns.
  const unitRoles = needed.includes('postgres')
    ? await unlessAborted(ensureUnitRoles(databaseUrl, stackUnits), signal)
    : new Map<string, (url: string) => string>();

  let startedGatewayUrl: string | undefined;
  const launched: UnitProcess[] = [];
  const processes = new Map<string, StackProcess>();
  let mailCatcher: MailCatcher | undefined;
  let s3Store: S3Store | undefined;
  let stopping = false;
  // If this process exits without stop() (a crash, process.exit), the
  // units must not outlive it holding their ports.
  const killUnits = (): void => launched.forEach((unit) => unit.kill());
  process.on('exit', killUnits);

  const shutdown = async (): Promise<void> => {
    stopping = true;
    for (const unit of [...launched].reverse()) await unit.stop(stopGraceMs);
    process.off('exit', killUnits);
    await Promise.allSettled([mailCatcher?.close(), s3Store?.close()]);
  };

  const spawnUnit = (
    name: string,
    unit: StackUnit,
    args: readonly string[],
    env: Record<string, string>,
  ): UnitProcess => {
    const child = startUnitProcess({
      name,
      command: process.execPath,
      args: [unit.entry, ...args],
      cwd: rootDir,
      env,
      ...(options.logDir ? { logFile: path.join(options.logDir, `${name.replace(/ /g, '-')}.log`) } : {}),
    });
    launched.push(child);
    return child;
  };

  try {
    throwIfAborted(signal);
    const mailDir = options.mailDir ?? path.join(dataDir, 'mail');
    if (inputs.SMTP_URL === undefined) {
      mailCatcher = await startMailCatcher({
        directory: mailDir,
        port: options.randomPorts ? 0 : await preferredOrAnyPort(preferredSmtpPort),
        onMail: (mail) => emit({ type: 'mail', mail }),
        onError: (error) => emit({ type: 'mail-error', message: error.message }),
      });
      emit({ type: 'mail-catcher-started', url: mailCatcher.url, directory: mailDir });
    }
    if (inputs.S3_ENDPOINT === undefined) {
      const s3Dir = options.s3Dir ?? path.join(dataDir, 's3');
      s3Store = await startS3Store({
        directory: s3Dir,
        port: options.randomPorts ? 0 : await preferredOrAnyPort(preferredS3Port),
        bucket: inputs.S3_BUCKET,
      });
      emit({ type: 's3-started', endpoint: s3Store.endpoint, bucket: s3Store.bucket, directory: s3Dir });
    }
    if (options.logDir) await mkdir(options.logDir, { recursive: true });

    const env = mergeEnvironment(given, defaults, {
      ...chosen,
      ...(mailCatcher ? { SMTP_URL: mailCatcher.url } : {}),
      ...(s3Store ? embeddedS3Variables(s3Store.endpoint, s3Store.bucket) : {}),
    });
    // Each started service's address, for the units that start after it.
    const addresses: Record<string, string> = {};
    const databaseEnv = (unit: StackUnit): Record<string, string> => {
      const asRole = unitRoles.get(unit.name);
      if (!asRole) return {};
      return Object.fromEntries(databaseVariables.filter((name) => env[name] !== undefined).map((name) => [name, asRole(env[name]!)]));
    };
    // The administrator's URLs reach no unit: one on PostgreSQL gets them as its own role, any other not at all.
    const sharedEnv = Object.fromEntries(Object.entries(env).filter(([name]) => !(databaseVariables as readonly string[]).includes(name)));
    const unitEnv = (unit: StackUnit): Record<string, string> =>
      mergeEnvironment(
        { ...sharedEnv, ...databaseEnv(unit), ...addresses, ...portVariables(ports.get(unit.name) ?? {}) },
        {},
        options.unitEnv?.(unit.name) ?? {},
      );

    for (const unit of migrationOrder(units)) {
      throwIfAborted(signal);
      emit({ type: 'migrating', unit: unit.name });
      const migration = spawnUnit(`${unit.name} migrate`, unit, ['migrate'], unitEnv(unit));
      let timedOut = false;
      // A migration waiting on a lock held elsewhere would otherwise hang the launch.
      const timer = setTimeout(() => {
        timedOut = true;
        void migration.stop(1_000);
      }, migrationTimeoutMs);
      const exit = await unlessAborted(migration.exited, signal).finally(() => clearTimeout(timer));
      if (exit.code !== 0) {
        const reason = timedOut ? `did not finish within ${migrationTimeoutMs / 1000} s` : describeExit(exit);
        throw new UnitStartError(`${unit.name} migrate`, reason, migration.lastLines(50));
      }
      emit({ type: 'migrated', unit: unit.name });
    }

    const running = new Map<string, UnitProcess>();
    const startUnit = async (unit: StackUnit): Promise<void> => {
      const unitPorts = ports.get(unit.name) ?? {};
      const startedAt = Date.now();
      const child = spawnUnit(unit.name, unit, unit.serveArgs, unitEnv(unit));
      running.set(unit.name, child);
      let ready = false;
      // Registered first, so an exit before ready is reported before
      // waitUntilReady rejects and the stack stops.
      void child.exited.then((exit) => {
        if (stopping) emit({ type: 'stopped', unit: unit.name, exit });
        else {
          const phase = ready ? 'running' : 'starting';
          emit({ type: 'exited', unit: unit.name, phase, exit, lastLines: child.lastLines(20) });
        }
      });
      emit({ type: 'starting', unit: unit.name, pid: child.pid, ports: unitPorts });
      const readyLine = await unlessAborted(child.waitUntilReady(options.readyTimeoutMs ?? 30_000), signal);
      ready = true;
      const boundPorts = { ...unitPorts, ...readyLine.ports };
      ports.set(unit.name, boundPorts);
      if (unit.addressVariable && boundPorts.GRPC_PORT) addresses[unit.addressVariable] = `127.0.0.1:${boundPorts.GRPC_PORT}`;
      if (unit.name === 'gateway') startedGatewayUrl = readyLine.url ?? `http://127.0.0.1:${boundPorts.GATEWAY_PORT}`;
      processes.set(unit.name, { name: unit.name, pid: child.pid, ports: boundPorts, output: () => child.output() });
      emit({
        type: 'ready',
        unit: unit.name,
        pid: child.pid,
        ports: boundPorts,
        ...(readyLine.url === undefined ? {} : { url: readyLine.url }),
        elapsedMs: Date.now() - startedAt,
      });
    };
    for (const unit of startOrder(units)) {
      throwIfAborted(signal);
      await startUnit(unit);
    }

    let stopped: Promise<void> | undefined;
    const catcher = mailCatcher;
    return {
      gatewayUrl: fixedGatewayUrl ?? startedGatewayUrl ?? env.PUBLIC_APP_URL ?? randomPortsAppUrl,
      env,
      databaseUrls: Object.fromEntries(units.filter((unit) => unitRoles.has(unit.name)).map((unit) => [unit.name, databaseEnv(unit).DATABASE_URL!])),
      ...(catcher
        ? {
            smtp: {
              url: catcher.url,
              directory: mailDir,
              mails: catcher.mails,
              waitForMail: (match, timeoutMs) => catcher.waitForMail(match, timeoutMs),
            },
          }
        : {}),
      ...(s3Store ? { s3: { endpoint: s3Store.endpoint, bucket: s3Store.bucket, directory: s3Store.directory } } : {}),
      processes,
      async restart(name) {
        const unit = units.find((candidate) => candidate.name === name);
        const child = running.get(name);
        if (!unit || !child) throw new Error(`${name} is not a unit of this stack`);
        child.kill();
        await child.exited;
        launched.splice(launched.indexOf(child), 1);
        await startUnit(unit);
      },
      stop: () => (stopped ??= shutdown()),
    };
  } catch (error) {
    await shutdown();
    throw error;
  }
}
