// Keeps "Adding a unit" in docs/operations.md true. A unit, `audit`, that
// the gateway calls, is added to the catalogue in a dry run: the generator
// gives it everything the chart, Skaffold, the Dockerfile and the README
// need; its callers read its address, get its client and probe it from the
// catalogue alone; and the files that must still be edited by hand are
// counted, each found by the test that holds it to the list of units or of
// protos and that `audit` would fail. They are the section's list.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { callerVariables, callerVariablesOf, connectCalleesOf, probeCalleesOf } from '@latchkey/callees';
import { serviceDefinitions, sessionsV1 } from '@latchkey/contracts';
import type { ServiceDefinitionShape } from '@latchkey/grpc-kit';
import { units, type Unit } from '@latchkey/units';
import { filesWithGeneratedRegions, generatedFiles, unitFiles } from '../../tools/unit-files/src';
import { architectureProblems, protoPackagesUnder } from '../support/architecture-doc';
import { chartDir, findObject, parseManifests, repoRoot, runHelm, templateArgs } from './helm';

const read = (file: string): string => readFileSync(path.join(repoRoot, file), 'utf8');
const section = (() => {
  const doc = read('docs/operations.md');
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
const catalogue = withAudit(audit);
const gateway = catalogue.find((unit) => unit.name === 'gateway')!;
/** What `pnpm gen` would generate from audit's proto: here sessions.v1's definition under audit's name. */
const definitions: Readonly<Record<string, ServiceDefinitionShape>> = {
  ...serviceDefinitions,
  'audit.v1.AuditService': Object.fromEntries(
    Object.entries(sessionsV1.SessionsServiceService).map(([method, definition]) => [
      method,
      { ...definition, path: definition.path.replace('sessions.v1.SessionsService', 'audit.v1.AuditService') },
    ]),
  ),
};

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
  const files = unitFiles(repoRoot, catalogue);

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

  test("is read by its caller at its address, by default its port on one host, beside the caller's other settings", () => {
    const before = z.object(callerVariables('gateway')).parse({});
    const after = z.object(callerVariablesOf(gateway, catalogue)).parse({});
    expect(after).toEqual({ ...before, AUDIT_GRPC_ADDRESS: '127.0.0.1:50071' });
    expect(files['README.md']).toContain('| `AUDIT_GRPC_ADDRESS` | gateway | `127.0.0.1:50071` | where audit listens |');
  });

  test("gets a client in its caller and a probe in the caller's dependency status", () => {
    const settings = z.object(callerVariablesOf(gateway, catalogue)).parse({});
    const callees = connectCalleesOf(gateway, settings, { catalogue, definitions });
    const probes = probeCalleesOf(gateway, settings, catalogue);
    try {
      expect(Object.keys(callees.clients)).toEqual([...Object.keys(gateway.calls).map((service) => service.split('.')[0]!)]);
      expect(Object.keys(callees.clients)).toContain('audit');
      expect(probes.map(({ unit, service }) => `${unit} ${service}`)).toContain('audit audit.v1.AuditService');
    } finally {
      callees.close();
      for (const { probe } of probes) probe.close();
    }
  });
});

describe('no caller is wired by hand', () => {
  /** The sources that run in the units' processes, tests aside, but the catalogue and the package that wires callers from it. */
  const sources = ['gateway/src', ...['services', 'packages'].flatMap((group) => readdirSync(path.join(repoRoot, group)).map((name) => `${group}/${name}/src`))]
    .filter((folder) => !['packages/units/src', 'packages/callees/src'].includes(folder) && existsSync(path.join(repoRoot, folder)))
    .flatMap((folder) => readdirSync(path.join(repoRoot, folder), { recursive: true, encoding: 'utf8' }).map((file) => path.join(folder, file)))
    .filter((file) => /\.tsx?$/.test(file) && !file.endsWith('.test.ts') && !file.includes('/gen/'));

  test("no unit's code names another unit's address variable", () => {
    const addresses = new Set(units.map((unit) => `${unit.name.toUpperCase()}_GRPC_ADDRESS`));
    const naming = sources.flatMap((file) => [...read(file).matchAll(/\b[A-Z]+_GRPC_ADDRESS\b/g)].filter(([name]) => addresses.has(name)).map(([name]) => `${file}: ${name}`));
    expect(naming).toEqual([]);
  });

  test('no client of a service a unit serves is built outside packages/callees: only the platform APIs, for their own clients', () => {
    const served = new Set(units.flatMap((unit) => unit.serves ?? []));
    // As the code spells a definition: `identityV1.IdentityServiceService` for identity.v1.IdentityService.
    const spelled = (service: string): string => {
      const [name, version, definition] = service.split('.');
      return `${name!}${version!.toUpperCase()}.${definition!}Service`;
    };
    const built = sources.flatMap((file) =>
      [...read(file).matchAll(/createServiceClient\(\s*([\w.]+)/g)].map(([, definition]) => ({ file, service: Object.keys(serviceDefinitions).find((name) => spelled(name) === definition) })),
    );
    expect(built.filter(({ service }) => service === undefined || served.has(service))).toEqual([
      // test-kit builds the clients of the tests, from whatever definition a test passes.
      { file: 'packages/test-kit/src/service-test-client.ts', service: undefined },
    ]);
    expect(built.map(({ service }) => service)).toContain('admin.v1.AdminService');
  });
});

describe('the hand-edited files, counted', () => {
  const settings = (): Record<string, unknown> => z.object(callerVariablesOf(gateway, catalogue)).parse({});
  const clientsOfGateway = (): string[] => {
    const callees = connectCalleesOf(gateway, settings(), { catalogue, definitions });
    callees.close();
    return Object.keys(callees.clients);
  };
  const probedByGateway = (): string[] => {
    const probes = probeCalleesOf(gateway, settings(), catalogue);
    for (const { probe } of probes) probe.close();
    return probes.map(({ unit }) => unit);
  };
  const refusesNatsWithoutUser = (): boolean => {
    try {
      unitFiles(repoRoot, withAudit({ ...audit, backingServices: ['postgres', 'nats'] }));
      return false;
    } catch {
      return true;
    }
  };

  /**
   * Each hand-written file that a test holds to the list of units or of
   * protos, or that wired callers by hand before, with whether `audit`
   * leaves it stale, so that it must be edited with the unit.
   */
  const staleWithAudit: Record<string, () => boolean> = {
    // test/docs/architecture.test.ts: a row per unit, and every proto package.
    'docs/architecture.md': () => architectureProblems(read('docs/architecture.md'), catalogue, [...protoPackagesUnder(repoRoot), 'audit']).length > 0,
    // packages/contracts/src/contracts.test.ts: the README's table lists every proto.
    'packages/contracts/README.md': () => !read('packages/contracts/README.md').includes('| `proto/audit/v1/audit.proto` |'),
    'packages/job-streams/src/bus-permissions.ts': refusesNatsWithoutUser,
    // The callers' side, which followed the catalogue by hand before packages/callees.
    'gateway/src/config.ts': () => !('AUDIT_GRPC_ADDRESS' in settings()),
    'gateway/src/gateway-wiring.ts': () => !clientsOfGateway().includes('audit'),
    'gateway/src/dependency-status.ts': () => !probedByGateway().includes('audit'),
    'README.md': () => !unitFiles(repoRoot, catalogue)['README.md']!.includes('| `AUDIT_GRPC_ADDRESS` |'),
  };

  test("are the catalogue, the unit's proto and the files it leaves stale: the section's list, at most five", () => {
    const stale = Object.keys(staleWithAudit).filter((file) => staleWithAudit[file]!());
    const edited = ['packages/units/src/unit-catalogue.ts', 'proto/<name>/v1/<name>.proto', ...stale];
    expect([...edited].sort()).toEqual([...handEdited].sort());
    expect(edited.length).toBeLessThanOrEqual(5);
  });
});
