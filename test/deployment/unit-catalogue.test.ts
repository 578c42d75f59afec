// The catalogue of packages/units is the one list of units. The stack is
// built from it, and `pnpm gen` generates from it what cannot import it
// (the chart's catalogue.yaml, Skaffold's artifacts, the Dockerfile's
// targets). Here the results are checked against the list, both ways, by
// reading them as Helm, Skaffold and Docker do: a unit of the list missing
// from one of them fails, and so does a unit in one of them that the list
// does not have.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { calleesOf, callersOf, serveArgsOf, units } from '@latchkey/units';
import { chartUnits } from './chart-units';
import { renderChart, repoRoot, type K8sObject } from './helm';
import { componentOf } from './workloads';

const declaredUnits = chartUnits();
const names = units.map((unit) => unit.name);
const sorted = (list: readonly string[]): string[] => [...list].sort();

describe('the chart', () => {
  test('declares exactly the units of the list', () => {
    expect(sorted(Object.keys(declaredUnits))).toEqual(sorted(names));
  });

  describe.each(units.map((unit) => [unit.name, unit] as const))('units.%s', (name, unit) => {
    const declared = () => {
      const chartUnit = declaredUnits[name];
      if (!chartUnit) throw new Error(`charts/latchkey declares no unit ${name}`);
      return chartUnit;
    };

    test('has the kind, command, ports and health service of the list', () => {
      const chartUnit = declared();
      expect(chartUnit.kind).toBe(unit.kind);
      expect(chartUnit.image.repository).toBe(`latchkey/${name}`);
      expect(chartUnit.args).toEqual(['node', 'dist/main.js', ...serveArgsOf(unit)]);
      expect(chartUnit.ports).toEqual(
        Object.fromEntries(unit.ports.map((port) => [port.name, { port: port.containerPort, env: port.variable }])),
      );
      expect(chartUnit.grpcHealthService).toBe(unit.grpcService);
    });

    test('calls the units of the list, and migrates when the list says so', () => {
      const chartUnit = declared();
      expect(sorted(chartUnit.calls ?? [])).toEqual(sorted(calleesOf(unit)));
      expect(chartUnit.migrations?.enabled ?? false).toBe(unit.migrates);
      if (unit.migrates) expect(chartUnit.migrations?.args).toEqual(['node', 'dist/main.js', 'migrate']);
    });

    test('hands it exactly the settings of the list', () => {
      const chartUnit = declared();
      const handed = [...(chartUnit.config ?? []), ...(chartUnit.secrets ?? []), ...(chartUnit.optionalSecrets ?? [])];
      expect(sorted(handed)).toEqual(sorted(unit.settings));
      expect(sorted(chartUnit.secrets ?? [])).toEqual(sorted(unit.requiredSecrets));
    });
  });

  describe('rendered', () => {
    let objects: K8sObject[];
    beforeAll(() => {
      objects = renderChart();
    });
    // The `helm test` Pod's own NetworkPolicy is a test hook, made by `helm test` only.
    const componentsOf = (kind: string): string[] =>
      sorted(objects.filter((object) => object.kind === kind && object.metadata.annotations?.['helm.sh/hook'] !== 'test').map((object) => componentOf(object) ?? 'unlabelled'));

    test('runs a Deployment, Service and NetworkPolicy for each unit of the list and for nothing else', () => {
      for (const kind of ['Deployment', 'Service', 'NetworkPolicy']) expect({ kind, components: componentsOf(kind) }).toEqual({ kind, components: sorted(names) });
    });

    test("opens each gRPC port to the list's callers of that unit and the `helm test` Pod, and to no one else", () => {
      for (const unit of units.filter((candidate) => candidate.kind === 'grpc')) {
        const policy = objects.find((object) => object.kind === 'NetworkPolicy' && componentOf(object) === unit.name)!;
        const rules = (policy.spec as { ingress: { ports: { port: string }[]; from?: { podSelector?: { matchLabels: Record<string, string> } }[] }[] })
          .ingress;
        const peers = rules
          .filter((rule) => rule.ports.some((port) => port.port === 'grpc'))
          .flatMap((rule) => rule.from ?? [{}])
          .map((peer) => peer.podSelector?.matchLabels['app.kubernetes.io/component'] ?? 'anyone');
        expect({ unit: unit.name, peers: sorted(peers) }).toEqual({ unit: unit.name, peers: sorted([...callersOf(unit.name), 'connection-test']) });
      }
    });
  });
});

describe('skaffold.yaml', () => {
  const skaffold = parse(readFileSync(path.join(repoRoot, 'skaffold.yaml'), 'utf8')) as {
    build: { artifacts: { image: string; docker?: { target?: string } }[] };
  };

  test('builds one image per unit of the list, from the Dockerfile target of its name, and no other', () => {
    const artifacts = skaffold.build.artifacts.map((artifact) => ({ image: artifact.image, target: artifact.docker?.target }));
    expect(sorted(artifacts.map((artifact) => JSON.stringify(artifact)))).toEqual(
      sorted(names.map((name) => JSON.stringify({ image: `latchkey/${name}`, target: name }))),
    );
  });
});

describe('the Dockerfile', () => {
  const stages = [...readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8').matchAll(/^FROM\s+(\S+)\s+AS\s+(\S+)\s*$/gim)].map(
    ([, from, name]) => ({ from: from!, name: name! }),
  );

  test('has a runtime target per unit of the list, and no other', () => {
    expect(sorted(stages.filter((stage) => stage.from === 'runtime').map((stage) => stage.name))).toEqual(sorted(names));
  });

  test('has a deploy stage per unit of the list, and no other', () => {
    const deployStages = stages.filter((stage) => stage.name.endsWith('-deploy')).map((stage) => stage.name);
    expect(sorted(deployStages)).toEqual(sorted(names.map((name) => `${name}-deploy`)));
  });
});

describe('the unit folders', () => {
  test.each(units.map((unit) => [unit.name, unit] as const))('%s is the package the list names', (_name, unit) => {
    const manifest = JSON.parse(readFileSync(path.join(repoRoot, unit.folder, 'package.json'), 'utf8')) as { name: string };
    expect(manifest.name).toBe(unit.packageName);
  });

  test('every service folder is a unit of the list', () => {
    const folders = readdirSync(path.join(repoRoot, 'services'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `services/${entry.name}`);
    expect(sorted(folders)).toEqual(sorted(units.filter((unit) => unit.folder.startsWith('services/')).map((unit) => unit.folder)));
  });
});
