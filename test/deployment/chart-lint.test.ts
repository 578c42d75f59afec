// `helm lint --strict` over the chart with each values file the project
// ships; strict mode turns warnings (and references to missing values in
// templates) into failures.
import { chartDir, devValues, productionValues, runHelm } from './helm';

test.each([
  ['default values', []],
  ['values-production.yaml', [productionValues]],
  ['k8s/values-dev.yaml', [devValues]],
])('helm lint --strict passes with %s', (_name, files) => {
  const result = runHelm(['lint', '--strict', chartDir, ...files.flatMap((file) => ['-f', file])]);
  expect({ status: result.status, output: result.stdout + result.stderr }).toEqual({
    status: 0,
    output: expect.stringContaining('1 chart(s) linted, 0 chart(s) failed') as string,
  });
  expect(result.stdout).not.toMatch(/\[(WARNING|ERROR)\]/);
});

test('helm lint fails on values that break the schema', () => {
  const result = runHelm(['lint', '--strict', chartDir, '--set', 'units.identity.replicaCount=-1']);
  expect(result.status).not.toBe(0);
  expect(result.stdout + result.stderr).toMatch(/replicaCount/);
});
