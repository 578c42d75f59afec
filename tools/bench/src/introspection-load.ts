import { credentials, Metadata } from '@grpc/grpc-js';
import { sessionsV1 } from '@latchkey/contracts';
import type { LoadJob, LoadResult } from './load-messages';

/**
 * The gRPC side of the load generator: `connections` callers on one channel
 * (as a service beside Latchkey would hold one), each calling
 * IntrospectSession again as soon as it is answered, until the time is up.
 * An inactive answer counts like a non-2xx: every seeded token is live.
 */
export async function runIntrospectionLoad(job: LoadJob & { introspect: NonNullable<LoadJob['introspect']> }): Promise<LoadResult> {
  const client = new sessionsV1.SessionsServiceClient(job.introspect.address, credentials.createInsecure());
  const tokens = job.introspect.tokens;
  const latencies: number[] = [];
  const statusCodes: Record<string, number> = {};
  let inactive = 0;
  let errors = 0;
  let next = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const endAt = started + job.durationSeconds * 1000;

  const call = (token: string) =>
    new Promise<void>((resolve) => {
      const sent = performance.now();
      client.introspectSession({ token }, new Metadata(), { deadline: Date.now() + 5_000 }, (error, answer) => {
        latencies.push(performance.now() - sent);
        const code = error ? String(error.code) : 'OK';
        statusCodes[code] = (statusCodes[code] ?? 0) + 1;
        if (error) errors += 1;
        else if (!answer.active) inactive += 1;
        resolve();
      });
    });
  const caller = async () => {
    while (performance.now() < endAt) {
      await call(tokens[next % tokens.length]!);
      next += 1;
    }
  };
  await Promise.all(Array.from({ length: job.connections }, caller));
  client.close();
  const cpu = process.cpuUsage(cpuBefore);
  return {
    durationSeconds: (performance.now() - started) / 1000,
    latenciesMs: Float64Array.from(latencies),
    non2xx: inactive + errors,
    socketErrors: errors,
    timeouts: statusCodes['4'] ?? 0,
    statusCodes,
    loaderCpuMs: (cpu.user + cpu.system) / 1000,
    loaderPeakRssBytes: process.resourceUsage().maxRSS * 1024,
  };
}
