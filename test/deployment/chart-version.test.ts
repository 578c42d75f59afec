// The chart's version changes when the chart does (charts/latchkey/CHANGELOG.md).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chartVersionProblems } from './chart-version';
import { chartDir, repoRoot } from './helm';

test('the chart of this repository: its version has its changelog entry and is no released version changed', () => {
  expect(chartVersionProblems(repoRoot)).toEqual([]);
});

describe('a repository that releases the chart', () => {
  let repository: string;
  const run = (...args: string[]) => execFileSync('git', args, { cwd: repository, stdio: 'pipe' });
  const chartFile = (file: string) => path.join(repository, 'charts', 'latchkey', file);
  const setVersion = (version: string) =>
    writeFileSync(chartFile('Chart.yaml'), readFileSync(chartFile('Chart.yaml'), 'utf8').replace(/^version: .*$/m, `version: ${version}`));
  const addEntry = (version: string) => writeFileSync(chartFile('CHANGELOG.md'), readFileSync(chartFile('CHANGELOG.md'), 'utf8').replace(/^## /m, `## ${version}\n\n- A change.\n\n## `));

  beforeEach(() => {
    repository = mkdtempSync(path.join(os.tmpdir(), 'latchkey-chart-release-'));
    cpSync(chartDir, path.join(repository, 'charts', 'latchkey'), { recursive: true });
    run('init', '-q');
    run('-c', 'user.name=test', '-c', 'user.email=test@example.com', 'add', '.');
    run('-c', 'user.name=test', '-c', 'user.email=test@example.com', 'commit', '-q', '-m', 'chart');
    const version = /^version: (.*)$/m.exec(readFileSync(chartFile('Chart.yaml'), 'utf8'))![1]!;
    run('tag', `latchkey-${version}`);
  });

  afterEach(() => rmSync(repository, { recursive: true, force: true }));

  test('a released chart that changes without a new version is refused, and accepted with one', () => {
    expect(chartVersionProblems(repository)).toEqual([]);
    writeFileSync(chartFile('templates/NOTES.txt'), `${readFileSync(chartFile('templates/NOTES.txt'), 'utf8')}\nOne more line.\n`);
    expect(chartVersionProblems(repository)).toEqual([expect.stringMatching(/the chart changed since latchkey-\S+ was released \(charts\/latchkey\/templates\/NOTES\.txt\)/)]);

    setVersion('99.0.0');
    expect(chartVersionProblems(repository)).toEqual([expect.stringMatching(/CHANGELOG\.md must start with an entry for 99\.0\.0/)]);
    addEntry('99.0.0');
    expect(chartVersionProblems(repository)).toEqual([]);
  });

  test('a new version must be above the last release', () => {
    setVersion('0.0.1');
    addEntry('0.0.1');
    expect(chartVersionProblems(repository)).toEqual(
      expect.arrayContaining([expect.stringMatching(/version 0\.0\.1 is not above the last release/), expect.stringMatching(/CHANGELOG\.md lists 0\.0\.1 before/)]),
    );
  });
});
