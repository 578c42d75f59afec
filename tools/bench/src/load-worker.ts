import autocannon from 'autocannon';
import {
  loadJobSchema,
  type LoadJob,
  type LoadResult,
  type RequestTemplate,
  type WorkerMessage,
} from './load-messages';
import { runGrpcLoad } from './grpc-load';
import { runOidcTokenLoad } from './oidc-token-load';
import { runOpenLoad } from './open-loop-load';
import { SearchProber } from './search-probe';

/**
 * The load generator: a child process of the bench, so that autocannon's
 * event loop and CPU are its own and never those of a measured process.
 * It runs the jobs it receives over IPC one after another (the bench
 * alternates short runs against the gateway and its baseline) and leaves
 * when the bench disconnects.
 */

function fillPlaceholder(template: RequestTemplate, placeholder: string, word: string): string | undefined {
  return template.body?.split(placeholder).join(word);
}

/** Runs autocannon for one job; latencies are taken per response, at sub-millisecond precision. */
export async function runLoad(job: LoadJob): Promise<LoadResult> {
  if (job.grpc) return runGrpcLoad({ ...job, grpc: job.grpc });
  if (job.oidc) return runOidcTokenLoad({ ...job, oidc: job.oidc });
  if (job.openLoop) return runOpenLoad({ ...job, openLoop: job.openLoop });
  const origin = new URL(job.url);
  const prober = job.searchProbe ? new SearchProber(origin.origin, job.searchProbe) : undefined;
  let next = 0;
  const latencies: number[] = [];
  const cpuBefore = process.cpuUsage();

  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: origin.origin,
        connections: job.connections,
        duration: job.durationSeconds,
        ...(job.overallRate === undefined ? {} : { overallRate: job.overallRate }),
        ...(job.amount === undefined ? {} : { amount: job.amount }),
        requests: [
          {
            // One counter over every connection: consecutive requests use consecutive templates.
            setupRequest: (request) => {
              const template = job.requests[next % job.requests.length] as RequestTemplate;
              next += 1;
              const body =
                prober && job.searchProbe
                  ? fillPlaceholder(template, job.searchProbe.placeholder, prober.words.next())
                  : template.body;
              return {
                ...request,
                method: template.method,
                path: template.path,
                headers: { ...template.headers },
                ...(body === undefined ? {} : { body }),
              };
            },
            ...(prober ? { onResponse: (status: number, body: string) => prober.recordCreate(status, body) } : {}),
          },
        ],
      },
      (error: Error | null, finished: autocannon.Result) => (error ? reject(error) : resolve(finished)),
    );
    instance.on('response', (_client, _statusCode, _bytes, responseTimeMs) => latencies.push(responseTimeMs));
  });

  const searchLatency = prober ? await prober.finish() : undefined;
  const cpu = process.cpuUsage(cpuBefore);
  const statusCodes: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stats.count ?? 0;
  return {
    durationSeconds: result.duration,
    latenciesMs: Float64Array.from(latencies),
    non2xx: result.non2xx,
    socketErrors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    loaderCpuMs: (cpu.user + cpu.system) / 1000,
    loaderPeakRssBytes: process.resourceUsage().maxRSS * 1024,
    ...(searchLatency ? { searchLatency } : {}),
  };
}

function send(message: WorkerMessage): void {
  process.send?.(message);
}

if (require.main === module) {
  if (!process.send) {
    process.stderr.write('load-worker runs as a child of the bench (tools/bench/src/load-generator.ts)\n');
    process.exit(2);
  }
  // Jobs arrive one at a time: the bench waits for each answer before it sends the next.
  process.on('message', (message: unknown) => {
    const job = loadJobSchema.safeParse(message);
    if (!job.success) {
      send({ type: 'error', id: -1, message: `not a load job: ${job.error.message}` });
      return;
    }
    runLoad(job.data).then(
      (result) => send({ type: 'result', id: job.data.id, result }),
      (error: unknown) => {
        const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
        send({ type: 'error', id: job.data.id, message: text });
      },
    );
  });
  process.on('disconnect', () => process.exit(0));
}
