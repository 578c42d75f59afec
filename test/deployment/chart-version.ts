// Whether the chart's version follows its content (charts/latchkey/CHANGELOG.md):
// a released version (tag latchkey-<version>) never changes, an unreleased
// one is above every release, and each version has its changelog entry.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

function git(repository: string, args: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync('git', args, { cwd: repository, encoding: 'utf8' });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** `1.2.3` → [1, 2, 3]; a pre-release or build suffix is not compared. */
function semver(version: string): [number, number, number] {
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!match) throw new Error(`not a version: ${version}`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

function compare(a: string, b: string): number {
  const [x, y] = [semver(a), semver(b)];
  for (let i = 0; i < 3; i += 1) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}

/** What is wrong with the version of the chart at `chart` (relative to `repository`); none when all is well. */
export function chartVersionProblems(repository: string, chart = 'charts/latchkey'): string[] {
  const directory = path.join(repository, chart);
  const { name, version } = parse(readFileSync(path.join(directory, 'Chart.yaml'), 'utf8')) as { name: string; version: string };
  const problems: string[] = [];

  const entries = [...readFileSync(path.join(directory, 'CHANGELOG.md'), 'utf8').matchAll(/^## (\S+)\s*$/gm)].map(([, entry]) => entry!);
  if (entries[0] !== version) problems.push(`CHANGELOG.md must start with an entry for ${version}, the version in Chart.yaml (it starts with ${entries[0] ?? 'none'})`);
  for (let i = 1; i < entries.length; i += 1) {
    if (compare(entries[i - 1]!, entries[i]!) <= 0) problems.push(`CHANGELOG.md lists ${entries[i - 1]} before ${entries[i]}: newest first, each once`);
  }

  const tags = git(repository, ['tag', '--list', `${name}-*`]);
  if (tags.status !== 0) return [...problems, `git tag failed: ${tags.stderr.trim()}`];
  const released = tags.stdout
    .split('\n')
    .map((tag) => tag.trim().slice(name.length + 1))
    .filter((tagged) => /^\d+\.\d+\.\d+/.test(tagged));
  if (released.includes(version)) {
    // The tag's tree against the working tree: a released version's chart never changes.
    const changed = git(repository, ['diff', '--name-only', `${name}-${version}`, '--', chart]);
    if (changed.status !== 0) return [...problems, `git diff failed: ${changed.stderr.trim()}`];
    const files = changed.stdout.split('\n').filter(Boolean);
    if (files.length > 0) problems.push(`the chart changed since ${name}-${version} was released (${files.join(', ')}): give it a new version in Chart.yaml and CHANGELOG.md`);
  } else {
    const newest = [...released].sort(compare).at(-1);
    if (newest !== undefined && compare(version, newest) <= 0) problems.push(`version ${version} is not above the last release, ${name}-${newest}`);
  }
  return problems;
}
