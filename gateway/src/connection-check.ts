import { z } from 'zod';
import { env, grpcServiceVariables, loadConfig } from '@latchkey/config';
import { HealthProbe, tlsFilesOf } from '@latchkey/grpc-kit';

/**
 * `node dist/connection-check.js`: what `helm test` runs in the gateway's
 * image (charts/latchkey/templates/tests/connection-test.yaml;
 * docs/operations.md, "Checking an install"). It asks the gateway's
 * /readyz through its Service, and every gRPC unit's grpc.health.v1
 * through theirs, with the gateway's certificate when mutual TLS is on,
 * prints one JSON line per check and exits 1 if any failed.
 */
const target = z
  .string()
  .regex(/^[^=\s]+:\d+=[\w.]+$/, 'must be host:port=grpc.service.Name')
  .transform((value) => {
    const [address, service] = value.split('=') as [string, string];
    return { address, service };
  });

const configSchema = z.object({
  CHECK_READY_URL: env.url(['http', 'https']),
  CHECK_GRPC_TARGETS: env.csv().pipe(z.array(target)),
  CHECK_TIMEOUT_MS: env.int(5_000, 100, 60_000),
  GRPC_TLS_CERT_FILE: grpcServiceVariables.GRPC_TLS_CERT_FILE,
  GRPC_TLS_KEY_FILE: grpcServiceVariables.GRPC_TLS_KEY_FILE,
  GRPC_TLS_CA_FILE: grpcServiceVariables.GRPC_TLS_CA_FILE,
});

export type ConnectionCheckConfig = z.output<typeof configSchema>;

export interface CheckResult {
  readonly check: string;
  readonly ok: boolean;
  readonly detail: string;
}

async function readiness(url: string, timeoutMs: number): Promise<CheckResult> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    return { check: url, ok: response.status === 200, detail: `HTTP ${response.status}` };
  } catch (error) {
    return { check: url, ok: false, detail: (error as Error).message };
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
  return Promise.all([
    readiness(config.CHECK_READY_URL, config.CHECK_TIMEOUT_MS),
    ...config.CHECK_GRPC_TARGETS.map(({ address, service }) => grpcHealth(address, service, config)),
  ]);
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
