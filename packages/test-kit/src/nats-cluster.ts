import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect } from 'nats';
import { freePort } from './free-port';
import { startProcess, type ManagedProcess } from './managed-process';
import { waitFor } from './wait-for';

export interface NatsClusterServer {
  readonly url: string;
  /** Kills the server at once (SIGKILL), as a crash would; its JetStream files stay. */
  kill(): Promise<void>;
  /** Starts it again with the same name, ports and files. */
  start(): Promise<void>;
}

export interface OwnNatsCluster {
  readonly servers: readonly NatsClusterServer[];
  /** NATS_URL: every server, comma-separated. */
  readonly urls: string;
  /** Waits until JetStream answers through `url` (a meta leader is elected and the account is usable). */
  waitForJetStream(url?: string, timeoutMs?: number): Promise<void>;
  /** Stops every server and removes their files. */
  stop(): Promise<void>;
}

/**
 * A three-node NATS cluster with JetStream of the test's own on loopback
 * ports, from the machine's nats-server (the Debian package), so that
 * streams can have three replicas and a server can die under them.
 */
export async function startNatsCluster(options: { size?: number } = {}): Promise<OwnNatsCluster> {
  const size = options.size ?? 3;
  const dir = mkdtempSync(path.join(tmpdir(), 'latchkey-nats-cluster-'));
  const nodes: { name: string; port: number; routePort: number; config: string }[] = [];
  for (let i = 0; i < size; i += 1) nodes.push({ name: `n${i + 1}`, port: await freePort(), routePort: await freePort(), config: '' });
  const routes = nodes.map((node) => `nats-route://127.0.0.1:${node.routePort}`);
  for (const node of nodes) {
    const store = path.join(dir, node.name);
    mkdirSync(store);
    node.config = path.join(dir, `${node.name}.conf`);
    writeFileSync(
      node.config,
      [
        `server_name: ${node.name}`,
        `listen: "127.0.0.1:${node.port}"`,
        `jetstream { store_dir: ${JSON.stringify(store)} }`,
        'cluster {',
        '  name: latchkey-test',
        `  listen: "127.0.0.1:${node.routePort}"`,
        `  routes: [${routes.map((route) => JSON.stringify(route)).join(', ')}]`,
        '}',
        '',
      ].join('\n'),
    );
  }
  const running = new Map<string, ManagedProcess>();
  const binary = process.env.NATS_SERVER_BIN ?? 'nats-server';
  const env = { PATH: `${process.env.PATH ?? ''}:/usr/sbin:/usr/local/sbin` };
  const startNode = async (node: (typeof nodes)[number]): Promise<void> => {
    const child = startProcess(`nats-${node.name}`, binary, ['-c', node.config], { cwd: dir, env });
    await child.waitForOutput(/Server is ready/);
    running.set(node.name, child);
  };
  const stop = async (): Promise<void> => {
    await Promise.all([...running.values()].map((p) => p.stop(5_000)));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await Promise.all(nodes.map(startNode));
  } catch (error) {
    await stop();
    throw error;
  }
  const cluster: OwnNatsCluster = {
    servers: nodes.map((node) => ({
      url: `nats://127.0.0.1:${node.port}`,
      async kill() {
        const child = running.get(node.name);
        child?.child.kill('SIGKILL');
        await child?.stop(1_000);
        running.delete(node.name);
      },
      start: () => startNode(node),
    })),
    urls: nodes.map((node) => `nats://127.0.0.1:${node.port}`).join(','),
    async waitForJetStream(url = nodes.map((node) => `nats://127.0.0.1:${node.port}`).join(','), timeoutMs = 30_000) {
      const nc = await connect({ servers: url.split(','), maxReconnectAttempts: -1 });
      try {
        await waitFor(
          async () => {
            await (await nc.jetstreamManager({ timeout: 2_000 })).getAccountInfo();
            return true;
          },
          { timeoutMs, intervalMs: 250, description: 'JetStream of the NATS cluster to answer' },
        );
      } finally {
        await nc.close();
      }
    },
    stop,
  };
  try {
    await cluster.waitForJetStream();
  } catch (error) {
    await stop();
    throw error;
  }
  return cluster;
}
