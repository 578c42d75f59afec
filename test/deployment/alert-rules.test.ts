// Every alert of the chart's PrometheusRule fires on the series the
// Prometheus Operator stores, and stays quiet otherwise: `promtool test
// rules` (Debian's prometheus package; .ci/run installs it) runs
// alerts/latchkey-alerts.test.yaml against the rules as the chart renders
// them. docs/operations.md, "What to alert on".
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { findObject, renderChart } from './helm';

const testFile = path.join(__dirname, 'alerts', 'latchkey-alerts.test.yaml');
const promtool = process.env.PROMTOOL ?? 'promtool';

interface RuleGroup {
  name: string;
  rules: { alert?: string; record?: string; expr: string }[];
}

interface PromtoolTests {
  rule_files: string[];
  tests: { name: string; alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[] }[];
}

function renderedGroups(set: readonly string[] = []): RuleGroup[] {
  const objects = renderChart({ set: ['metrics.prometheusRule.enabled=true', ...set] });
  return (findObject(objects, 'PrometheusRule', 'latchkey').spec as { groups: RuleGroup[] }).groups;
}

function runPromtool(args: readonly string[], cwd: string): { status: number | null; output: string } {
  const result = spawnSync(promtool, args, { cwd, encoding: 'utf8' });
  if (result.error) throw new Error(`${promtool} did not run (Debian: apt-get install prometheus): ${result.error.message}`);
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('the PrometheusRule', () => {
  let directory: string;
  let groups: RuleGroup[];
  const tests = parse(readFileSync(testFile, 'utf8')) as PromtoolTests;

  beforeAll(() => {
    directory = mkdtempSync(path.join(os.tmpdir(), 'latchkey-alerts-'));
    groups = renderedGroups();
    const [rulesFile] = tests.rule_files;
    writeFileSync(path.join(directory, rulesFile!), stringify({ groups }));
    copyFileSync(testFile, path.join(directory, path.basename(testFile)));
  });

  afterAll(() => {
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  test('is valid for promtool', () => {
    const result = runPromtool(['check', 'rules', tests.rule_files[0]!], directory);
    expect({ status: result.status, output: result.output }).toEqual({ status: 0, output: expect.stringContaining('SUCCESS') });
  });

  test('has a promtool test in which each alert fires, and one in which it does not', () => {
    const alerts = groups.flatMap((group) => group.rules.map((rule) => rule.alert)).filter((name): name is string => name !== undefined);
    expect(alerts.length).toBeGreaterThanOrEqual(18);
    const cases = tests.tests.flatMap((test) => test.alert_rule_test ?? []);
    for (const alert of alerts) {
      const mine = cases.filter((candidate) => candidate.alertname === alert);
      expect({ alert, fires: mine.some((candidate) => candidate.exp_alerts.length > 0) }).toEqual({ alert, fires: true });
      expect({ alert, quiet: mine.some((candidate) => candidate.exp_alerts.length === 0) }).toEqual({ alert, quiet: true });
    }
    // And no test names an alert the chart does not have.
    expect(cases.map((candidate) => candidate.alertname).filter((name) => !alerts.includes(name))).toEqual([]);
  });

  test('passes `promtool test rules`', () => {
    const result = runPromtool(['test', 'rules', path.basename(testFile)], directory);
    expect({ status: result.status, output: result.output }).toEqual({ status: 0, output: expect.stringContaining('SUCCESS') });
  });

  test('takes groups of your own beside the chart’s', () => {
    const own = { name: 'acme', rules: [{ alert: 'AcmeManyPosts', expr: 'sum(rate(grpc_server_handled_total{grpc_method="CreatePost"}[5m])) > 100' }] };
    const withOwn = renderedGroups([`metrics.prometheusRule.extraGroups[0].name=${own.name}`, `metrics.prometheusRule.extraGroups[0].rules[0].alert=${own.rules[0]!.alert}`, `metrics.prometheusRule.extraGroups[0].rules[0].expr=${own.rules[0]!.expr.replace(/,/g, '\\,')}`]);
    expect(withOwn.map((group) => group.name)).toEqual(['latchkey', 'acme']);
    expect(withOwn[1]).toEqual(own);
  });
});
