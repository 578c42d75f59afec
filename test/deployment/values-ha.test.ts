// charts/latchkey/values-ha.yaml: Latchkey on Bitnami's Redis with
// Sentinel, the NATS chart's 3-node cluster and a CloudNativePG Cluster
// behind its Pooler. Rendered over values-production.yaml, it passes `helm
// lint --strict`, validates, hands every unit what those engines publish,
// and lets every unit reach them with egress on.
import path from 'node:path';
import { units as catalogue } from '@latchkey/units';
import { chartDir, findObject, type K8sObject, productionValues, renderChart, runHelm } from './helm';
import { unknownFields, validateWithModel } from './manifest-validation';
import { containerEnvironment, mainContainer } from './workloads';

const haValues = path.join(chartDir, 'values-ha.yaml');

type Rule = { ports?: { port: number | string; protocol?: string }[] };

describe('values-ha.yaml', () => {
  let objects: K8sObject[];
  beforeAll(() => {
    objects = renderChart({ values: [productionValues, haValues] });
  });

  test('passes helm lint --strict and every object validates', () => {
    const result = runHelm(['lint', '--strict', chartDir, '-f', productionValues, '-f', haValues]);
    expect({ status: result.status, warnings: result.stdout.match(/\[(WARNING|ERROR)\].*/g) ?? [] }).toEqual({ status: 0, warnings: [] });
    for (const object of objects) validateWithModel(object);
    expect(objects.flatMap(unknownFields)).toEqual([]);
  });

  test.each(catalogue.map((unit) => [unit.name, unit] as const))('%s reads the sentinels, the Bitnami password, the Pooler and the primary, and reaches them', (name, unit) => {
    const workload = findObject(objects, 'Deployment', `latchkey-${name}`);
    const environment = containerEnvironment(objects, mainContainer(workload));
    expect(environment.values.REDIS_MODE).toBe('sentinel');
    expect(environment.values.REDIS_SENTINELS?.split(',')).toHaveLength(3);
    expect(environment.external.get('REDIS_PASSWORD')).toEqual({ secret: 'latchkey-redis', key: 'redis-password', optional: true });
    const egress = ((findObject(objects, 'NetworkPolicy', `latchkey-${name}`).spec as { egress: Rule[] }).egress ?? []).flatMap((rule) => (rule.ports ?? []).map((port) => port.port));
    expect(egress).toEqual(expect.arrayContaining([26379, 6379]));
    if (!unit.settings.includes('DATABASE_URL')) return;
    expect(environment.values.DATABASE_URL).toMatch(/^postgres:\/\/\$\(LATCHKEY_DATABASE_USERNAME\):\$\(LATCHKEY_DATABASE_PASSWORD\)@latchkey-db-pooler-rw:5432\/\$\(LATCHKEY_DATABASE_DATABASE\)\?sslmode=require$/);
    expect(environment.values.DATABASE_SESSION_URL).toMatch(/@latchkey-db-rw:5432\//);
    expect(environment.external.get('LATCHKEY_DATABASE_PASSWORD')).toEqual({ secret: 'latchkey-db-app', key: 'password', optional: false });
    expect(environment.values.NATS_STREAM_REPLICAS).toBe('3');
    expect(egress).toContain(5432);
  });
});
