import { z } from 'zod';
import { env, loadConfig, mutualTlsVariables } from '@latchkey/config';
import { HealthProbe, tlsFilesOf } from '@latchkey/grpc-kit';

/**
 * `node dist/connection-check.js`: what `helm test` runs in the gateway's
 * image (charts/latchkey/templates/tests/connection-test.yaml;
 * docs/operations.md, "Checking an install"). It asks the gateway's
 * `/dependencies` through its Service (whether the gateway reaches Redis
 * and every unit), and every gRPC unit's grpc.health.v1 through theirs,
 * with the gateway's certificate when mutual TLS is on, prints one JSON
 * line per check and exits 1 if any failed.
 */
const target = z
  .string()
  .regex(/^[^=\s]+:\d+=[\w.]+$/, 'must be host:port=grpc.service.Name')
  .transform((value) => {
    const [address, service] = value.split('=') as [string, string];
    return { address, service };
  });

const configSchema = z.object({
  CHECK_DEPENDENCIES_URL: env.url(['http', 'https']),
  CHECK_GRPC_TARGETS: env.csv().pipe(z.array(target)),
  CHECK_TIMEOUT_MS: env.int(5_000, 100, 60_000),
  ...mutualTlsVariables,
});

export type ConnectionCheckConfig = z.output<typeof configSchema>;

export interface CheckResult {
  readonly check: string;
  readonly ok: boolean;
  readonly detail: string;
}

const dependencyAnswer = z.record(z.string(), z.enum(['up', 'down']));

/** One result per dependency the gateway names (`gateway → redis`), or one for the URL when it does not answer. */
async function gatewayDependencies(url: string, timeoutMs: number): Promise<CheckResult[]> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    const answer = dependencyAnswer.safeParse(await response.json().catch(() => undefined));
    if (!answer.success) return [{ check: url, ok: false, detail: `HTTP ${response.status}, not a dependency list` }];
    return Object.entries(answer.data).map(([name, state]) => ({ check: `gateway → ${name}`, ok: state === 'up', detail: state }));
  } catch (error) {
    return [{ check: url, ok: false, detail: (error as Error).message }];
  }
}

async function grpcHealth(address: string, service: string, config: ConnectionCheckConfig): Promise<CheckResult> {
  const probe = new HealthProbe(address, tlsFilesOf(config));
  try {
    const serving = await probe.serving(service, config.CHECK_TIMEOUT_MS);
    return { check: `${address} ${service}`, ok: serving, detail: serving ? 'SERVING' : 'not serving or unreachable' };
  } finally {
    probe.close();
  }
}

/** Runs every check at once and answers their results. */
export async function checkConnections(config: ConnectionCheckConfig): Promise<CheckResult[]> {
  const [dependencies, ...units] = await Promise.all([
    gatewayDependencies(config.CHECK_DEPENDENCIES_URL, config.CHECK_TIMEOUT_MS),
    ...config.CHECK_GRPC_TARGETS.map(({ address, service }) => grpcHealth(address, service, config)),
  ]);
  return [...dependencies, ...units];
}

export function loadConnectionCheckConfig(environment: Record<string, string | undefined> = process.env): ConnectionCheckConfig {
  return loadConfig(configSchema, environment);
}

if (require.main === module) {
  void (async () => {
    const results = await checkConnections(loadConnectionCheckConfig());
    for (const result of results) process.stdout.write(`${JSON.stringify(result)}\n`);
    process.exitCode = results.every((result) => result.ok) ? 0 : 1;
  })();
}
