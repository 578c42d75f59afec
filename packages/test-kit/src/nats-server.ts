import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './free-port';
import { startProcess, type ManagedProcess } from './managed-process';

export interface OwnNatsServer {
  readonly url: string;
  /** Stops the broker (its JetStream data stays, as after a crash). */
  stop(): Promise<void>;
  /** Starts it again on the same port with the same data. */
  start(): Promise<void>;
  /** Stops it and removes its data. */
  destroy(): Promise<void>;
}

export interface OwnNatsServerOptions {
  /** More configuration, in the NATS server's format (an `authorization` block, say). */
  readonly config?: string;
  /** Variables the configuration reads (`$NAME`). */
  readonly env?: Readonly<Record<string, string>>;
  readonly binary?: string;
}

/**
 * A NATS server with JetStream of the test's own, on a random port, for
 * tests that take the broker away or give it users. Uses the same binary as
 * the machine's.
 */
export async function startOwnNatsServer(options: OwnNatsServerOptions = {}): Promise<OwnNatsServer> {
  const port = await freePort();
  const storeDir = mkdtempSync(path.join(tmpdir(), 'latchkey-nats-'));
  const configFile = path.join(storeDir, 'nats.conf');
  writeFileSync(configFile, `listen: "127.0.0.1:${port}"\njetstream { store_dir: ${JSON.stringify(storeDir)} }\n${options.config ?? ''}\n`);
  const binary = options.binary ?? process.env.NATS_SERVER_BIN ?? 'nats-server';
  let current: ManagedProcess | undefined;
  const start = async (): Promise<void> => {
    current = startProcess('nats-server', binary, ['-c', configFile], {
      cwd: storeDir,
      env: { ...options.env, PATH: `${process.env.PATH ?? ''}:/usr/sbin:/usr/local/sbin` },
    });
    await current.waitForOutput(/Server is ready/);
  };
  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    start,
    async stop() {
      await current?.stop();
      current = undefined;
    },
    async destroy() {
      await current?.stop();
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}
