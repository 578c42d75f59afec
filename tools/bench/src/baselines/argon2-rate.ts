import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import argon2 from 'argon2';
import { argon2JobSchema, type Argon2Job, type Argon2Result } from './baseline-messages';

/**
 * The baseline of `login`: how many Argon2id verifications per second this
 * machine does with the identity service's parameters, keeping as many in
 * flight as libuv has threads (argon2 hashes on the thread pool). A login
 * can do no better than one verification each. The process stays up for
 * the bench's alternating runs and answers one job at a time.
 */

const hashes = new Map<string, Promise<{ hash: string; password: string }>>();

/** One hash per parameter set, made (and verified once, to load the addon and start the pool) before any run. */
function hashFor(job: Argon2Job): Promise<{ hash: string; password: string }> {
  const key = `${job.memoryKiB}/${job.timeCost}/${job.parallelism}`;
  let made = hashes.get(key);
  if (!made) {
    const password = randomBytes(16).toString('base64url');
    made = argon2
      .hash(password, { type: argon2.argon2id, memoryCost: job.memoryKiB, timeCost: job.timeCost, parallelism: job.parallelism })
      .then(async (hash) => {
        await argon2.verify(hash, password);
        return { hash, password };
      });
    hashes.set(key, made);
  }
  return made;
}

export async function measureArgon2Rate(job: Argon2Job): Promise<Argon2Result> {
  const { hash, password } = await hashFor(job);
  const latencies: number[] = [];
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + job.durationSeconds * 1000;
  const lane = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const begun = performance.now();
      if (!(await argon2.verify(hash, password))) throw new Error('argon2 rejected its own hash');
      latencies.push(performance.now() - begun);
    }
  };
  await Promise.all(Array.from({ length: job.concurrency }, lane));
  const durationSeconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  return {
    type: 'result',
    id: job.id,
    verifies: latencies.length,
    durationSeconds,
    latenciesMs: Float64Array.from(latencies),
    cpuMs: (cpu.user + cpu.system) / 1000,
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
  };
}

if (require.main === module) {
  process.on('message', (message: unknown) => {
    measureArgon2Rate(argon2JobSchema.parse(message)).then(
      (result) => process.send?.(result),
      (error: unknown) => {
        process.stderr.write(`argon2 rate failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
        process.exit(1);
      },
    );
  });
  process.on('disconnect', () => process.exit(0));
}
