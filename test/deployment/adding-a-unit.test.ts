// Keeps "Adding a unit" in docs/operations.md true: the files it lists as
// edited by hand are few, exist, and are none of those `pnpm gen` writes;
// and a unit added to the catalogue alone, in a dry run, gets from the
// generator everything the chart, Skaffold and the Dockerfile need.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { units, type Unit } from '@latchkey/units';
import { filesWithGeneratedRegions, generatedFiles, unitFiles } from '../../tools/unit-files/src';
import { chartDir, findObject, parseManifests, repoRoot, runHelm, templateArgs } from './helm';

const section = (() => {
  const doc = readFileSync(path.join(repoRoot, 'docs', 'operations.md'), 'utf8');
  const start = doc.indexOf('\n## Adding a unit\n');
  const end = doc.indexOf('\n## ', start + 1);
  return doc.slice(start, end < 0 ? undefined : end);
})();
/** The numbered list of files edited by hand. */
const handEdited = [...section.matchAll(/^\d+\. `([^`]+)`/gm)].map(([, file]) => file!);

const audit: Unit = {
  name: 'audit',
  kind: 'grpc',
  folder: 'services/audit',
  packageName: '@latchkey/audit',
  grpcService: 'audit.v1.AuditService',
  serves: ['audit.v1.AuditService'],
  ports: [
    { name: 'grpc', variable: 'GRPC_PORT', containerPort: 50_051, localOffset: 20 },
    { name: 'metrics', variable: 'METRICS_PORT', containerPort: 9_464, localOffset: 20 },
  ],
  calls: { 'identity.v1.IdentityService': ['GetUser'] },
  migrates: true,
  backingServices: ['postgres', 'redis'],
  settings: ['NODE_ENV', 'LOG_LEVEL', 'DATABASE_URL', 'REDIS_URL', 'REDIS_PASSWORD'],
  requiredSecrets: ['DATABASE_URL', 'REDIS_URL'],
};
const withAudit = (unit: Unit): Unit[] => [
  ...units.map((known) => (known.name === 'gateway' ? { ...known, calls: { ...known.calls, 'audit.v1.AuditService': ['ListEvents'] } } : known)),
  unit,
];

describe('the files edited by hand', () => {
  test('are at most five, besides the unit folder', () => {
    expect(handEdited.length).toBeGreaterThan(0);
    expect(handEdited.length).toBeLessThanOrEqual(5);
  });

  test('exist (a proto for every gRPC unit)', () => {
    for (const file of handEdited) {
      const instances = file.includes('<name>')
        ? units.filter((unit) => unit.kind === 'grpc').map((unit) => file.replaceAll('<name>', unit.name))
        : [file];
      for (const instance of instances) expect({ file: instance, exists: existsSync(path.join(repoRoot, instance)) }).toEqual({ file: instance, exists: true });
    }
  });

  test('are none of the generated ones, which the section names', () => {
    for (const file of [...generatedFiles, ...filesWithGeneratedRegions]) {
      expect(handEdited).not.toContain(file);
      expect({ file, named: section.includes(`\`${file}\``) }).toEqual({ file, named: true });
    }
  });
});

describe('a unit added to the catalogue alone', () => {
  const files = unitFiles(repoRoot, withAudit(audit));

  test('gets its image target, deploy stage and Skaffold artifact', () => {
    expect(files.Dockerfile).toContain('FROM build AS audit-deploy');
    expect(files.Dockerfile).toMatch(/^FROM runtime AS audit\nCOPY --from=audit-deploy \/out \/app\n/m);
    const skaffold = parse(files['skaffold.yaml']!) as { build: { artifacts: { image: string; docker: { target: string } }[] } };
    expect(skaffold.build.artifacts).toContainEqual(expect.objectContaining({ image: 'latchkey/audit', docker: expect.objectContaining({ target: 'audit' }) }));
  });

  test('is deployed by the chart, reached by its callers and migrated, with no edit to values.yaml', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'latchkey-adding-a-unit-'));
    try {
      const chart = path.join(dir, 'latchkey');
      cpSync(chartDir, chart, { recursive: true });
      writeFileSync(path.join(chart, 'catalogue.yaml'), files['charts/latchkey/catalogue.yaml']!);
      const args = templateArgs();
      const result = runHelm(args.map((arg) => (arg === chartDir ? chart : arg)));
      expect(result.stderr).toBe('');
      const objects = parseManifests(result.stdout);
      for (const kind of ['Deployment', 'Service', 'NetworkPolicy', 'ServiceAccount']) expect(findObject(objects, kind, 'latchkey-audit')).toBeDefined();
      expect(findObject(objects, 'Job', 'latchkey-audit-migrate')).toBeDefined();
      expect((findObject(objects, 'ConfigMap', 'latchkey-gateway').data as Record<string, string>).AUDIT_GRPC_ADDRESS).toBe('latchkey-audit:50051');
      const admitted = JSON.stringify(findObject(objects, 'NetworkPolicy', 'latchkey-audit').spec);
      expect(admitted).toContain('"app.kubernetes.io/component":"gateway"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('that uses NATS is refused until bus-permissions.ts, a file of the list, gives it a user', () => {
    expect(() => unitFiles(repoRoot, withAudit({ ...audit, backingServices: ['postgres', 'nats'] }))).toThrow(
      'packages/job-streams/src/bus-permissions.ts',
    );
    expect(handEdited).toContain('packages/job-streams/src/bus-permissions.ts');
  });
});
