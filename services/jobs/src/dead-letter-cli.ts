import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { databaseVariables, loadConfig, natsVariables } from '@latchkey/config';
import { createPool } from '@latchkey/db';
import { operatorOfCommandLine } from '@latchkey/grpc-kit';
import { connectToBus } from '@latchkey/job-streams';
import { listDeadLetterAudit, recordReplay } from './dead-letter-audit';
import { DeadLetters } from './dead-letters';
import { JOBS_SCHEMA } from './migrate';

/**
 * `jobs dlq list`, `jobs dlq replay <seq>` and `jobs dlq audit`
 * (docs/operations.md, "Dead letters" and "Audit"): the dead-letter stream
 * for an operator, from `pnpm jobs:dlq` or, in the cluster, `kubectl exec
 * deploy/latchkey-jobs -- node dist/dead-letter-cli.js list`. `list` needs
 * only the broker; a replay is recorded in `jobs.dead_letter_audit_log`
 * with the person who asked before it happens, so it needs the database
 * too, and `audit` reads that log.
 */
const busSchema = z.object({
  ...natsVariables,
});
const databaseSchema = z.object({ DATABASE_URL: databaseVariables.DATABASE_URL });

const USAGE = `usage: jobs dlq list
       jobs dlq replay <seq> [--operator <who>]
       jobs dlq audit [--limit N]
--operator names you in the audit log (default: the OS user running this;
required where that user has no name, as inside the images).
`;

class UsageError extends Error {}

function openDatabase() {
  const { DATABASE_URL } = loadConfig(databaseSchema, process.env);
  return createPool({
    connectionString: DATABASE_URL,
    schema: JOBS_SCHEMA,
    max: 1,
    applicationName: 'latchkey-jobs-dlq',
    onIdleError: () => undefined,
  });
}

async function withDeadLetters<T>(work: (letters: DeadLetters) => Promise<T>): Promise<T> {
  const config = loadConfig(busSchema, process.env);
  const nc = await connectToBus(config, { name: 'latchkey-jobs-dlq' });
  try {
    return await work(new DeadLetters(await nc.jetstreamManager(), nc.jetstream(), config.NATS_SUBJECT_PREFIX));
  } finally {
    await nc.drain();
  }
}

function print(rows: readonly unknown[]): void {
  for (const row of rows) process.stdout.write(`${JSON.stringify(row)}\n`);
}

async function main(argv: readonly string[]): Promise<number> {
  let command: { action: 'list' } | { action: 'replay'; seq: number; operator: string } | { action: 'audit'; limit: number };
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: { operator: { type: 'string' }, limit: { type: 'string', default: '100' } },
    });
    const [action, seqText, ...rest] = positionals;
    const seq = Number(seqText);
    const limit = Number(values.limit);
    if (action === 'list' && seqText === undefined) command = { action };
    else if (action === 'replay' && Number.isInteger(seq) && seq > 0 && rest.length === 0) {
      command = { action, seq, operator: operatorOfCommandLine(values.operator) };
    } else if (action === 'audit' && seqText === undefined && Number.isInteger(limit) && limit >= 1 && limit <= 1000) {
      command = { action, limit };
    } else throw new UsageError(action === undefined ? 'a command is needed' : `cannot run: ${positionals.join(' ')}`);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }

  if (command.action === 'list') {
    print(await withDeadLetters((letters) => letters.list()));
    return 0;
  }
  const db = openDatabase();
  try {
    if (command.action === 'audit') {
      print(await listDeadLetterAudit(db, command.limit));
      return 0;
    }
    const { seq, operator } = command;
    const subject = await withDeadLetters(async (letters) => {
      // Recorded first: a replay the log cannot record does not happen.
      await recordReplay(db, { operator, host: hostname(), letter: await letters.find(seq) });
      return letters.replay(seq);
    });
    print([{ replayed: seq, subject }]);
    return 0;
  } finally {
    await db.end();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
