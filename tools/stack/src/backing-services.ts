import { connect } from 'node:net';
import type { BackingServiceName } from './stack-units';

export interface BackingServiceCheck {
  readonly name: BackingServiceName;
  /** The variable that names the service's address. */
  readonly variable: 'DATABASE_URL' | 'REDIS_URL' | 'NATS_URL';
  readonly host: string;
  readonly port: number;
  /** How to start the machine's own instance on Debian 12, as .ci/run does. */
  readonly startCommand: string;
}

const services: Record<BackingServiceName, Omit<BackingServiceCheck, 'host' | 'port'> & { defaultPort: number }> = {
  postgres: {
    name: 'postgres',
    variable: 'DATABASE_URL',
    defaultPort: 5432,
    startCommand: 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
  },
  redis: {
    name: 'redis',
    variable: 'REDIS_URL',
    defaultPort: 6379,
    startCommand: 'redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no',
  },
  nats: {
    name: 'nats',
    variable: 'NATS_URL',
    defaultPort: 4222,
    startCommand:
      'start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server' +
      ' -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server',
  },
};

/** Where `name` is, from the URL in `environment` (which has every default applied). */
export function backingServiceAddress(
  name: BackingServiceName,
  environment: Readonly<Record<string, string>>,
): BackingServiceCheck {
  const { defaultPort, ...service } = services[name];
  // A Sentinel group or a Redis Cluster is named by host:port lists; the first node stands for it.
  const mode = environment.REDIS_MODE;
  const nodes = name === 'redis' && mode === 'sentinel' ? environment.REDIS_SENTINELS : name === 'redis' && mode === 'cluster' ? environment.REDIS_CLUSTER_NODES : undefined;
  // NATS_URL may list several servers of a cluster; the first stands for it too.
  const first = nodes === undefined ? (environment[service.variable] ?? '').split(',')[0]! : `redis://${nodes.split(',')[0]!.trim()}`;
  const url = new URL(first.trim());
  // URL keeps IPv6 hosts in brackets; net.connect wants them bare.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1') || '127.0.0.1';
  return { ...service, host, port: url.port === '' ? defaultPort : Number(url.port) };
}

function canConnect(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (reachable: boolean): void => {
      socket.destroy();
      resolve(reachable);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * The services of `names` that do not accept a TCP connection. A connect is
 * enough to tell "not started" apart from everything else, and it answers
 * in milliseconds where a client library would retry for seconds.
 */
export async function findUnreachableBackingServices(
  names: readonly BackingServiceName[],
  environment: Readonly<Record<string, string>>,
  timeoutMs = 1_000,
): Promise<BackingServiceCheck[]> {
  const checks = [...new Set(names)].map((name) => backingServiceAddress(name, environment));
  const reachable = await Promise.all(checks.map((check) => canConnect(check.host, check.port, timeoutMs)));
  return checks.filter((_, index) => !reachable[index]);
}

/** Thrown before anything starts when PostgreSQL, Redis or NATS is not there. */
export class BackingServicesUnreachableError extends Error {
  override readonly name = 'BackingServicesUnreachableError';
  readonly unreachable: readonly BackingServiceCheck[];

  constructor(unreachable: readonly BackingServiceCheck[]) {
    super(
      `not reachable: ${unreachable.map((s) => `${s.name} at ${s.host}:${s.port} (${s.variable})`).join(', ')}`,
    );
    this.unreachable = unreachable;
  }
}
