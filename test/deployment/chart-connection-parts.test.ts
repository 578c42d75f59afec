// docs/operations.md, "Connection parts": PostgreSQL and Redis from the
// separate keys database operators publish (CloudNativePG's app Secret,
// Bitnami's Redis Secret). The kubelet composes the URLs from them, and
// every unit's process starts with what it composes.
import path from 'node:path';
import { type z } from 'zod';
import { units as catalogue } from '@latchkey/units';
import { findObject, type K8sObject, removeValuesFiles, renderChart, repoRoot, runHelm, templateArgs, writeValuesFile } from './helm';
import { containerEnvironment, mainContainer } from './workloads';

afterAll(removeValuesFiles);

/** The operators' Secrets, as they publish them. */
const operatorSecrets: Record<string, Record<string, string>> = {
  'latchkey-db-app': { username: 'app', password: 'Zq8xY3rT5uW7vB9n', dbname: 'latchkey', host: 'latchkey-db-rw', port: '5432' },
  'latchkey-redis': { 'redis-password': 'k4Jd9sLq2wXe' },
};

const parts = {
  connections: {
    database: {
      enabled: true,
      host: 'latchkey-db-pooler-rw',
      port: 5432,
      sessionHost: { name: 'latchkey-db-app', key: 'host' },
      sessionPort: { name: 'latchkey-db-app', key: 'port' },
      readHost: 'latchkey-db-ro',
      readPort: 5432,
      database: { name: 'latchkey-db-app', key: 'dbname' },
      username: { name: 'latchkey-db-app', key: 'username' },
      password: { name: 'latchkey-db-app', key: 'password' },
      parameters: 'sslmode=require',
    },
    redis: { enabled: true, host: 'latchkey-redis-master', port: 6379, db: 2, password: { name: 'latchkey-redis', key: 'redis-password' } },
  },
  secrets: { values: { DATABASE_URL: '', REDIS_URL: '' }, reloader: true },
};

/** A container's environment as the kubelet builds it, with the operators' Secrets in the cluster. */
function environmentOf(objects: readonly K8sObject[], workload: K8sObject): Record<string, string> {
  const environment = containerEnvironment(objects, mainContainer(workload));
  const values: Record<string, string> = { ...environment.values };
  for (const [name, reference] of environment.external) {
    const value = operatorSecrets[reference.secret]?.[reference.key];
    if (value !== undefined) values[name] = value;
  }
  // The kubelet expands $(VAR) from the variables defined before it.
  for (const variable of mainContainer(workload).env ?? []) {
    if (variable.value !== undefined) values[variable.name] = variable.value.replace(/\$\(([A-Z0-9_]+)\)/g, (whole, name: string) => values[name] ?? whole);
  }
  return values;
}

function loaderOf(folder: string): (environment: Record<string, string>) => Record<string, unknown> {
  const exported = jest.requireActual<Record<string, unknown>>(path.join(repoRoot, folder, 'src', 'config'));
  return Object.entries(exported).find(([name]) => /^load\w+Config$/.test(name))![1] as (environment: Record<string, string>) => Record<string, unknown>;
}

describe('connections', () => {
  let objects: K8sObject[];
  beforeAll(() => {
    objects = renderChart({ values: [writeValuesFile(parts)] });
  });

  test.each(catalogue.map((unit) => [unit.name, unit] as const))('%s starts with the URLs composed from the parts, its migration too', (name, unit) => {
    const workloads = objects.filter((object) => (object.kind === 'Deployment' && object.metadata.name === `latchkey-${name}`) || (object.kind === 'Job' && object.metadata.name === `latchkey-${name}-migrate`));
    const load = loaderOf(unit.folder);
    for (const workload of workloads) {
      const config = load(environmentOf(objects, workload));
      expect(config.REDIS_URL).toBe('redis://latchkey-redis-master:6379/2');
      expect(config.REDIS_PASSWORD).toBe('k4Jd9sLq2wXe');
      if (!unit.settings.includes('DATABASE_URL')) continue;
      expect(config.DATABASE_URL).toBe('postgres://app:Zq8xY3rT5uW7vB9n@latchkey-db-pooler-rw:5432/latchkey?sslmode=require');
      expect(config.DATABASE_SESSION_URL).toBe('postgres://app:Zq8xY3rT5uW7vB9n@latchkey-db-rw:5432/latchkey?sslmode=require');
      if (name === 'posts') expect(config.DATABASE_READ_URL).toBe('postgres://app:Zq8xY3rT5uW7vB9n@latchkey-db-ro:5432/latchkey?sslmode=require');
    }
  });

  test('the variables the chart sets beside what a process reads are only the parts a URL is composed of, from the operators’ Secrets', () => {
    for (const unit of catalogue) {
      const exported = jest.requireActual<Record<string, unknown>>(path.join(repoRoot, unit.folder, 'src', 'config'));
      const known = new Set(Object.keys((exported.configSchema as z.ZodObject).shape));
      const container = mainContainer(findObject(objects, 'Deployment', `latchkey-${unit.name}`));
      const extra = (container.env ?? []).filter((variable) => !known.has(variable.name));
      const composedFrom = new Set((container.env ?? []).flatMap((variable) => [...(variable.value ?? '').matchAll(/\$\(([A-Z0-9_]+)\)/g)].map((match) => match[1])));
      for (const variable of extra) {
        expect({ unit: unit.name, name: variable.name, part: composedFrom.has(variable.name), from: variable.valueFrom?.secretKeyRef?.name }).toEqual({
          unit: unit.name,
          name: variable.name,
          part: true,
          from: expect.stringMatching(/^latchkey-(db-app|redis)$/) as string,
        });
      }
    }
  });

  test('the chart’s Secret keeps no URL, and Reloader watches the operators’ Secrets', () => {
    const secret = findObject(objects, 'Secret', 'latchkey-secrets');
    expect(Object.keys(secret.data as Record<string, string>).filter((key) => /DATABASE|REDIS/.test(key))).toEqual([]);
    const reload = findObject(objects, 'Deployment', 'latchkey-posts').metadata.annotations?.['secret.reloader.stakater.com/reload']?.split(',');
    expect(reload).toEqual(expect.arrayContaining(['latchkey-db-app', 'latchkey-redis']));
    expect(findObject(objects, 'Deployment', 'latchkey-gateway').metadata.annotations?.['secret.reloader.stakater.com/reload']?.split(',')).not.toContain('latchkey-db-app');
  });

  test('a unit’s own secrets.unitRefs still win over the parts', () => {
    const own = renderChart({ values: [writeValuesFile(parts), writeValuesFile({ secrets: { unitRefs: { identity: { DATABASE_URL: { name: 'latchkey-db-identity', key: 'uri' } } } } })] });
    const identity = containerEnvironment(own, mainContainer(findObject(own, 'Deployment', 'latchkey-identity')));
    expect(identity.external.get('DATABASE_URL')).toEqual({ secret: 'latchkey-db-identity', key: 'uri', optional: false });
    expect(environmentOf(own, findObject(own, 'Deployment', 'latchkey-posts')).DATABASE_URL).toMatch(/^postgres:\/\/app:/);
  });

  test('a password given as a value, a host with a path, or parts without a host are refused', () => {
    for (const [values, message] of [
      [{ connections: { database: { ...parts.connections.database, password: 'hunter2' } } }, /password/],
      [{ connections: { database: { ...parts.connections.database, host: 'db/evil' } } }, /host/],
      [{ connections: { redis: { enabled: true, host: '' } } }, /host/],
    ] as const) {
      const result = runHelm(templateArgs({ values: [writeValuesFile(values)] }));
      expect(result.status).not.toBe(0);
      expect(result.stderr).toMatch(message);
    }
  });
});
