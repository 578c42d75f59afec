import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { units } from '@latchkey/units';
import { nscCommands } from './nsc-commands';
import { createUnitNkeys, natsUnitsOf, nkeyAuthorization, nkeySecretManifest, nkeyValues } from './unit-nkeys';

/**
 * `pnpm nats:keys`: what natsAuth.mode nkey and creds need and Helm cannot
 * make (docs/operations.md, "NATS permissions").
 */

const usage = `usage:
  pnpm nats:keys nkey --out <dir> [--namespace latchkey] [--secret latchkey-nats-nkeys] [--prefix latchkey]
      A new NKey for each unit that uses NATS. Writes into <dir>:
        nats-nkeys-secret.yaml   the Secret of the seeds (kubectl apply it; keep it out of git)
        nats-nkeys-values.yaml   natsAuth values with the public keys (a values file of the release)
        nats-authorization.conf  the NATS server's authorization block, public keys only
  pnpm nats:keys nsc [--account LATCHKEY] [--prefix latchkey]
      Prints the nsc commands that make each unit's user and its <unit>.creds (natsAuth.mode creds).
`;

const print = (text: string): void => void process.stdout.write(`${text}\n`);

function main(argv: readonly string[]): number {
  const { positionals, values } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      out: { type: 'string' },
      namespace: { type: 'string', default: 'latchkey' },
      secret: { type: 'string', default: 'latchkey-nats-nkeys' },
      prefix: { type: 'string', default: 'latchkey' },
      account: { type: 'string', default: 'LATCHKEY' },
      help: { type: 'boolean', default: false },
    },
  });
  const natsUnits = natsUnitsOf(units);
  const [command] = positionals;
  if (values.help || positionals.length !== 1) {
    process.stderr.write(usage);
    return values.help ? 0 : 2;
  }
  if (command === 'nsc') {
    print(nscCommands({ account: values.account, prefix: values.prefix, units: natsUnits }).join('\n'));
    return 0;
  }
  if (command === 'nkey' && values.out) {
    const keys = createUnitNkeys(natsUnits);
    const files: [string, string, number][] = [
      // The seeds are the units' credentials: readable by their owner only.
      ['nats-nkeys-secret.yaml', nkeySecretManifest({ name: values.secret, namespace: values.namespace, keys }), 0o600],
      ['nats-nkeys-values.yaml', nkeyValues({ secretName: values.secret, keys }), 0o644],
      ['nats-authorization.conf', `${nkeyAuthorization(values.prefix, keys)}\n`, 0o644],
    ];
    // `wx`: new keys never overwrite the ones a running installation uses.
    for (const [name, text, mode] of files) writeFileSync(path.join(values.out, name), text, { flag: 'wx', mode });
    print(`wrote ${files.map(([name]) => path.join(values.out!, name)).join(', ')} for ${natsUnits.join(', ')}`);
    return 0;
  }
  process.stderr.write(usage);
  return 2;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
