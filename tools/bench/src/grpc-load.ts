import { credentials, Metadata, type CallOptions, type Client, type ServiceError } from '@grpc/grpc-js';
import { orgsV1, sessionsV1 } from '@latchkey/contracts';
import type { GrpcLoad, LoadJob, LoadResult } from './load-messages';

/** How long one call may take before it counts as a timeout (DEADLINE_EXCEEDED). */
const CALL_DEADLINE_MS = 5_000;

/** One load's client and its calls: `call` makes the `index`th request and reports whether it got the expected answer. */
interface UnaryLoad {
  readonly client: Client;
  call(index: number, options: CallOptions, done: (error: ServiceError | null, expected: boolean) => void): void;
}

function unaryLoadOf(load: GrpcLoad): UnaryLoad {
  switch (load.call) {
    case 'introspect-session': {
      const client = new sessionsV1.SessionsServiceClient(load.address, credentials.createInsecure());
      return {
        client,
        call(index, options, done) {
          const token = load.tokens[index % load.tokens.length]!;
          client.introspectSession({ token }, new Metadata(), options, (error, answer) => done(error, !error && answer.active));
        },
      };
    }
    case 'check-permission': {
      const client = new orgsV1.OrganizationAccessServiceClient(load.address, credentials.createInsecure());
      return {
        client,
        call(index, options, done) {
          const { allowed, ...request } = load.checks[index % load.checks.length]!;
          client.checkPermission(request, new Metadata(), options, (error, answer) => done(error, !error && answer.allowed === allowed));
        },
      };
    }
  }
}

/**
 * The gRPC side of the load generator: `connections` callers on one channel
 * (as a service beside Latchkey would hold one), each calling again as soon
 * as it is answered, until the time is up. An unexpected answer (an
 * inactive session, a permission check gone the other way) counts like a
 * non-2xx: every seeded request has a known answer.
 */
export async function runGrpcLoad(job: LoadJob & { grpc: GrpcLoad }): Promise<LoadResult> {
  const load = unaryLoadOf(job.grpc);
  const latencies: number[] = [];
  const statusCodes: Record<string, number> = {};
  let unexpected = 0;
  let errors = 0;
  let next = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const endAt = started + job.durationSeconds * 1000;

  const call = (index: number) =>
    new Promise<void>((resolve) => {
      const sent = performance.now();
      load.call(index, { deadline: Date.now() + CALL_DEADLINE_MS }, (error, expected) => {
        latencies.push(performance.now() - sent);
        const code = error ? String(error.code) : 'OK';
        statusCodes[code] = (statusCodes[code] ?? 0) + 1;
        if (error) errors += 1;
        else if (!expected) unexpected += 1;
        resolve();
      });
    });
  const caller = async () => {
    while (performance.now() < endAt) {
      const index = next;
      next += 1;
      await call(index);
    }
  };
  await Promise.all(Array.from({ length: job.connections }, caller));
  load.client.close();
  const cpu = process.cpuUsage(cpuBefore);
  return {
    durationSeconds: (performance.now() - started) / 1000,
    latenciesMs: Float64Array.from(latencies),
    non2xx: unexpected + errors,
    socketErrors: errors,
    timeouts: statusCodes['4'] ?? 0,
    statusCodes,
    loaderCpuMs: (cpu.user + cpu.system) / 1000,
    loaderPeakRssBytes: process.resourceUsage().maxRSS * 1024,
  };
}
