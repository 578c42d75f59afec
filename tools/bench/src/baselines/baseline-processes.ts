import { startBenchChild, type BenchChild } from '../child-scripts';
import {
  argon2ResultSchema,
  bareServerReadySchema,
  type Argon2Job,
  type Argon2Result,
  type BareServerConfig,
} from './baseline-messages';

export interface RunningBareServer {
  readonly url: string;
  /** `host:port` of the bare gRPC server. */
  readonly grpcAddress: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/** Starts the bare Fastify server (bare-server.ts) in its own process, with the same Node as the stack. */
export async function launchBareServer(config: Omit<BareServerConfig, 'type'>): Promise<RunningBareServer> {
  const server = startBenchChild('baselines/bare-server.js');
  try {
    const ready = server.receive(bareServerReadySchema, 15_000);
    server.child.send({ type: 'start', ...config } satisfies BareServerConfig);
    const { port, grpcPort } = await ready;
    return { url: `http://127.0.0.1:${port}`, grpcAddress: `127.0.0.1:${grpcPort}`, pid: server.pid, stop: () => server.stop() };
  } catch (error) {
    await server.stop(1_000);
    throw error;
  }
}

/** The argon2-rate.ts process, kept for the bench's alternating runs. */
export class Argon2Rate {
  private jobs = 0;

  private constructor(private readonly child: BenchChild) {}

  static start(): Argon2Rate {
    return new Argon2Rate(startBenchChild('baselines/argon2-rate.js'));
  }

  get pid(): number {
    return this.child.pid;
  }

  async run(job: Omit<Argon2Job, 'type' | 'id'>): Promise<Argon2Result> {
    this.jobs += 1;
    const id = this.jobs;
    const answer = this.child.receive(
      argon2ResultSchema.refine((result) => result.id === id),
      job.durationSeconds * 1000 + 30_000,
    );
    this.child.child.send({ type: 'run', id, ...job } satisfies Argon2Job);
    return answer;
  }

  stop(): Promise<void> {
    return this.child.stop(2_000);
  }
}
