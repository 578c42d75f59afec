// Keeps docs/architecture.md, "The credential ledger", true: the kinds of
// credential it names are the proto's and the ledger's, each with the unit
// identity lets write it, and its table of RPCs is every identity.v1 RPC
// that names a kind of credential, with the callers the units catalogue
// allows.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { methodCallersOf, unitNamed } from '@latchkey/units';
import { OWNER_OF } from '../../services/identity/src/credential-ledger';

const root = path.resolve(__dirname, '../..');
const read = (file: string): string => readFileSync(path.join(root, file), 'utf8');

const section = (() => {
  const doc = read('docs/architecture.md');
  const start = doc.indexOf('\n## The credential ledger\n');
  expect(start).toBeGreaterThan(0);
  return doc.slice(start, doc.indexOf('\n## ', start + 1));
})();

/** The rows of the section's markdown table whose header starts with `first`, as cells. */
function tableOf(first: string): string[][] {
  const lines = section.split('\n');
  const header = lines.findIndex((line) => line.startsWith(`| ${first} |`));
  expect(header).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split('|').slice(1, -1).map((cell) => cell.trim()));
  }
  return rows;
}

const proto = read('proto/identity/v1/identity.proto');
const unquoted = (cell: string): string => cell.replaceAll('`', '');

/** identity.v1's RPCs whose request names a kind of credential. */
function ledgerRpcs(): string[] {
  return [...proto.matchAll(/rpc (\w+)\((\w+)\)/g)]
    .filter(([, , request]) => new RegExp(`message ${request} \\{[^}]*CredentialKind kind = `).test(proto))
    .map(([, rpc]) => rpc!);
}

const ownerOf: Record<string, string> = { ...OWNER_OF, password: 'identity' };

describe('docs/architecture.md, "The credential ledger"', () => {
  it('names the kinds of the proto and of the ledger table, each with its factor and the unit that writes it', () => {
    const kinds = tableOf('kind').map(([kind, factor, owner]) => ({ kind: unquoted(kind!), factor: factor!.split(',')[0], owner }));
    const protoKinds = [...proto.matchAll(/CREDENTIAL_KIND_(\w+) = [1-9]/g)].map(([, kind]) => kind!.toLowerCase());
    expect(kinds.map((row) => row.kind)).toEqual(protoKinds);
    const checked = /kind text NOT NULL CHECK \(kind IN \(([^)]*)\)\)/.exec(read('services/identity/migrations/014_credential_ledger.sql'))![1]!;
    expect(checked.split(',').map((kind) => kind.trim().replaceAll("'", ''))).toEqual(protoKinds);
    for (const row of kinds) {
      expect(row).toEqual({ kind: row.kind, factor: row.kind === 'totp' ? 'second' : 'first', owner: ownerOf[row.kind] });
      expect(unitNamed(row.owner!).name).toBe(row.owner);
    }
  });

  it('lists every RPC of the ledger, with the units the catalogue lets call it, and those are the owners of the kinds', () => {
    const listed = tableOf('RPC').map(([rpc, callers]) => ({ rpc: unquoted(rpc!), callers: callers!.split(', ') }));
    const callers = methodCallersOf('identity.v1.IdentityService');
    expect(listed.map((row) => row.rpc)).toEqual(ledgerRpcs());
    for (const row of listed) {
      expect(row).toEqual({ rpc: row.rpc, callers: callers[row.rpc] });
      expect([...row.callers].sort()).toEqual(Object.values(OWNER_OF).sort());
    }
  });
});
