// docs/architecture.md describes the units and the contracts between
// them: held here to the catalogue (packages/units) and to proto/, so that
// a unit or a call added there and not here fails.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { unitNamed, units, type Unit } from '@latchkey/units';
import { architectureProblems, protoPackagesUnder } from '../support/architecture-doc';

const root = path.resolve(__dirname, '../..');
const architecture = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');
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
