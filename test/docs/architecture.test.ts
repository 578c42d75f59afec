// docs/architecture.md describes the units and the contracts between
// them: held here to the catalogue (packages/units) and to proto/, so that
// a unit or a call added there and not here fails. Its section "The
// credential ledger" is held to identity.v1's kinds of credential, the
// ledger's table, the unit identity lets write each kind, and the callers
// the catalogue allows each of the ledger's RPCs.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { methodCallersOf, unitNamed, units, type Unit } from '@latchkey/units';
import { OWNER_OF } from '../../services/identity/src/credential-ledger';
import { architectureProblems, protoPackagesUnder } from '../support/architecture-doc';

const root = path.resolve(__dirname, '../..');
const read = (file: string): string => readFileSync(path.join(root, file), 'utf8');
const architecture = read('docs/architecture.md');
const protoPackages = protoPackagesUnder(root);

test('names exactly the units of the catalogue, each talking to the units it calls, and lists exactly the protos', () => {
  expect(protoPackages).toContain('identity');
  expect(architectureProblems(architecture, units, protoPackages)).toEqual([]);
});

test('fails a unit, a call or a proto it does not name', () => {
  const audit: Unit = { ...unitNamed('posts'), name: 'audit', folder: 'services/audit', grpcService: 'audit.v1.AuditService', serves: ['audit.v1.AuditService'] };
  const totpCallsPosts = units.map((unit) => (unit.name === 'totp' ? { ...unit, calls: { ...unit.calls, 'posts.v1.PostsService': ['GetPost'] } } : unit));
  expect(architectureProblems(architecture, [...units, audit], protoPackages)).toEqual(['the units table has no row for services/audit']);
  expect(architectureProblems(architecture, totpCallsPosts, protoPackages)).toEqual(['totp talks to identity in the units table, and calls identity, posts']);
  expect(architectureProblems(architecture, units, [...protoPackages, 'audit'])).toEqual([
    `"Contracts" lists proto/{${protoPackages.join(',')}}, and proto/ holds ${[...protoPackages, 'audit'].join(', ')}`,
  ]);
});

const section = (() => {
  const start = architecture.indexOf('\n## The credential ledger\n');
  expect(start).toBeGreaterThan(0);
  return architecture.slice(start, architecture.indexOf('\n## ', start + 1));
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

const ownerOf: Record<string, string> = { ...OWNER_OF, password: 'identity', sso: 'identity' };

describe('docs/architecture.md, "The credential ledger"', () => {
  it('names the kinds of the proto and of the ledger table, each with its factor and the unit that writes it', () => {
    const kinds = tableOf('kind').map(([kind, factor, owner]) => ({ kind: unquoted(kind!), factor: factor!.split(',')[0], owner }));
    const protoKinds = [...proto.matchAll(/CREDENTIAL_KIND_(\w+) = [1-9]/g)].map(([, kind]) => kind!.toLowerCase());
    expect(kinds.map((row) => row.kind)).toEqual(protoKinds);
    // The kinds the table takes now: as the last migration that changed its CHECK left them (017 added sso).
    const checked = /credentials_kind_check CHECK \(kind IN \(([^)]*)\)\)/.exec(read('services/identity/migrations/017_sso.sql'))![1]!;
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
