import { z } from 'zod';
import { loadConfig, natsVariables } from '@latchkey/config';
import { connectToBus } from '@latchkey/job-streams';
import { DeadLetters } from './dead-letters';

/**
 * `jobs dlq list` and `jobs dlq replay <seq>` (docs/operations.md, "Dead
 * letters"): the dead-letter stream for an operator, from `pnpm jobs:dlq`
 * or, in the cluster, `kubectl exec deploy/latchkey-jobs -- node
 * dist/dead-letter-cli.js list`. It needs only the broker.
 */
const configSchema = z.object({
  ...natsVariables,
});

const USAGE = 'usage: jobs dlq list | jobs dlq replay <seq>\n';

async function main(args: readonly string[]): Promise<number> {
  const [action, seqText] = args;
  if (action !== 'list' && action !== 'replay') {
    process.stderr.write(USAGE);
    return 2;
  }
  const seq = Number(seqText);
  if (action === 'replay' && !(Number.isInteger(seq) && seq > 0)) {
    process.stderr.write(USAGE);
    return 2;
  }
  const config = loadConfig(configSchema, process.env);
  const nc = await connectToBus(config, { name: 'latchkey-jobs-dlq' });
  try {
    const letters = new DeadLetters(await nc.jetstreamManager(), nc.jetstream(), config.NATS_SUBJECT_PREFIX);
    if (action === 'list') {
      for (const letter of await letters.list()) process.stdout.write(`${JSON.stringify(letter)}\n`);
    } else {
      const subject = await letters.replay(seq);
      process.stdout.write(`${JSON.stringify({ replayed: seq, subject })}\n`);
    }
    return 0;
  } finally {
    await nc.drain();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
