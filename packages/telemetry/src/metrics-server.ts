import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry, collectDefaultMetrics } from 'prom-client';

/**
 * A registry with Node's process metrics already collected, every series
 * labelled with its unit. The label is `unit`, not `service`: Prometheus
 * scraping through a Service (the Prometheus Operator's ServiceMonitor)
 * sets `service` itself and would rename ours to `exported_service`.
 */
export function createMetricsRegistry(unit: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ unit });
  // The default 10 ms event-loop sampler costs an idle process about 10 ms of CPU a second.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
  return registry;
}

export interface OperationsServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * The plain-HTTP side port of a service: `/metrics` for Prometheus,
 * `/healthz` (the process runs), `/readyz` (it can take its work now) and,
 * where given, `/dependencies` (JSON: each dependency `up` or `down`; 503
 * while one is down), which says what readiness does not weigh.
 */
export async function startOperationsServer(options: {
  port: number;
  host?: string;
  registry: Registry;
  ready: () => Promise<boolean>;
  dependencies?: () => Promise<Readonly<Record<string, boolean>>>;
}): Promise<OperationsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const reply = (status: number, body: string, type = 'text/plain; charset=utf-8'): void => {
      res.writeHead(status, { 'content-type': type }).end(body);
    };
    if (req.method !== 'GET') return reply(405, 'method not allowed\n');
    if (path === '/metrics') {
      options.registry.metrics().then(
        (text) => reply(200, text, options.registry.contentType),
        () => reply(500, 'metrics unavailable\n'),
      );
      return;
    }
    if (path === '/healthz') return reply(200, 'ok\n');
    const dependencies = options.dependencies;
    if (path === '/dependencies' && dependencies) {
      dependencies().then(
        (status) => {
          const body = Object.fromEntries(Object.entries(status).map(([name, up]) => [name, up ? 'up' : 'down']));
          reply(Object.values(status).every(Boolean) ? 200 : 503, `${JSON.stringify(body)}\n`, 'application/json');
        },
        () => reply(503, 'dependencies unknown\n'),
      );
      return;
    }
    if (path === '/readyz') {
      options.ready().then(
        (ready) => reply(ready ? 200 : 503, ready ? 'ready\n' : 'not ready\n'),
        () => reply(503, 'not ready\n'),
      );
      return;
    }
    return reply(404, 'not found\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
