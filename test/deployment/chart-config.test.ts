// The chart and the processes agree on configuration: every variable a
// process requires reaches its Deployment and its migration Job, every
// variable the chart sets is one the process reads (no typos), and the
// environment the chart builds passes the process's own validation.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { testSigningKeys } from '@latchkey/test-kit';
import { calleesOf, units as catalogue } from '@latchkey/units';
import { adminCliConfigSchema } from '../../services/identity/src/admin-cli-config';
import { chartDir, devValues, findObject, type K8sObject, productionValues, renderChart, repoRoot } from './helm';
import { componentOf, containerEnvironment, mainContainer } from './workloads';

interface ProcessConfig {
  schema: z.ZodObject;
  load: (environment: Record<string, string | undefined>) => unknown;
  /** Another process run in the unit's pods (latchkey-admin in identity's), reading the same environment. */
  alsoRead?: z.ZodObject;
}

/**
 * A unit's configuration, from its folder's src/config.ts: the schema it
 * exports as configSchema and its one load<Unit>Config function.
 */
function processConfigOf(folder: string): ProcessConfig {
  const exported = jest.requireActual<Record<string, unknown>>(path.join(repoRoot, folder, 'src', 'config'));
  const loaders = Object.entries(exported).filter(([name, value]) => /^load\w+Config$/.test(name) && typeof value === 'function');
  if (!(exported.configSchema instanceof z.ZodObject) || loaders.length !== 1) {
    throw new Error(`${folder}/src/config.ts must export configSchema and one load<Unit>Config function`);
  }
  return { schema: exported.configSchema, load: loaders[0]![1] as ProcessConfig['load'] };
}

/** Every unit's process; latchkey-admin also runs in identity's pods. */
const processes: Record<string, ProcessConfig> = Object.fromEntries(
  catalogue.map((unit) => [unit.name, { ...processConfigOf(unit.folder), ...(unit.name === 'identity' ? { alsoRead: adminCliConfigSchema } : {}) }]),
);

/** The gRPC services, each listening on 50051 and reached at <UNIT>_GRPC_ADDRESS. */
const grpcUnits = catalogue.filter((unit) => unit.kind === 'grpc').map((unit) => unit.name);

/** Who calls whom over gRPC: each caller reads the callee's address. */
const callers: Record<string, readonly string[]> = Object.fromEntries(
  catalogue.filter((unit) => calleesOf(unit).length > 0).map((unit) => [unit.name, calleesOf(unit)]),
);

/** Variables that carry credentials: only ever from a Secret. */
const credentials = [
  'DATABASE_URL',
  'REDIS_URL',
  'NATS_URL',
  'SMTP_URL',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'OPENSEARCH_USERNAME',
  'OPENSEARCH_PASSWORD',
  'TOTP_ENCRYPTION_KEY',
  'TOTP_PREVIOUS_ENCRYPTION_KEYS',
  'SSO_ENCRYPTION_KEY',
  'SSO_PREVIOUS_ENCRYPTION_KEYS',
  'GOOGLE_CLIENT_SECRET',
  'GITHUB_CLIENT_SECRET',
];

/**
 * Variables a process cannot start without (no default, not optional), in
 * the chart's default REDIS_MODE, standalone, which needs REDIS_URL
 * (packages/config's redisModeProblems).
 */
function requiredVariables(schema: z.ZodObject): string[] {
  const required = Object.entries(schema.shape)
    .filter(([, field]) => !(field as z.ZodType).safeParse(undefined).success)
    .map(([name]) => name);
  if ('REDIS_MODE' in schema.shape) required.push('REDIS_URL');
  return required.sort();
}


test('the required variables are the ones this test expects (the schemas are read, not copied)', () => {
  expect(requiredVariables(processes.gateway!.schema)).toEqual(['AUTH_JWT_SIGNING_KEYS', 'PUBLIC_APP_URL', 'REDIS_URL']);
  expect(requiredVariables(processes.identity!.schema)).toEqual(['DATABASE_URL', 'NATS_URL', 'REDIS_URL']);
  expect(requiredVariables(processes.posts!.schema)).toEqual(['DATABASE_URL', 'NATS_URL', 'REDIS_URL']);
  expect(requiredVariables(processes.totp!.schema)).toEqual(['DATABASE_URL', 'NATS_URL', 'REDIS_URL', 'TOTP_ENCRYPTION_KEY']);
  expect(requiredVariables(processes.oauth!.schema)).toEqual(['DATABASE_URL', 'NATS_URL', 'REDIS_URL']);
  expect(requiredVariables(processes.jobs!.schema)).toEqual(['DATABASE_URL', 'NATS_URL', 'PUBLIC_APP_URL', 'REDIS_URL', 'SMTP_URL']);
});

test('a configuration is read here for every unit of the list', () => {
  expect(Object.keys(processes).sort()).toEqual(catalogue.map((unit) => unit.name).sort());
});

test.each(catalogue.map((unit) => [unit.name, unit] as const))('%s reads every setting the list hands it, and listens where the stack expects', (name, unit) => {
  const { schema, load } = processes[name]!;
  const read = new Set(Object.keys(schema.shape));
  expect(unit.settings.filter((setting) => !read.has(setting))).toEqual([]);
  // Run alone, a gRPC service listens on the port the stack gives it: 50051 plus its offset.
  const grpc = unit.ports.find((port) => port.name === 'grpc');
  if (grpc) {
    const required = {
      DATABASE_URL: 'postgres://db/x',
      REDIS_URL: 'redis://r',
      NATS_URL: 'nats://n',
      TOTP_ENCRYPTION_KEY: Buffer.alloc(32).toString('base64'),
      PUBLIC_APP_URL: 'https://accounts.example.com',
      AUTH_JWT_SIGNING_KEYS: testSigningKeys(),
    };
    expect((load(required) as Record<string, unknown>)[grpc.variable]).toBe(50_051 + grpc.localOffset);
  }
});

test("the secrets a process cannot start without are the catalogue's requiredSecrets, which the chart makes required keys", () => {
  const values = parse(readFileSync(path.join(chartDir, 'values.yaml'), 'utf8')) as { config: Record<string, unknown> };
  for (const unit of catalogue) {
    const requiredSecrets = requiredVariables(processes[unit.name]!.schema).filter((name) => !(name in values.config));
    expect({ unit: unit.name, requiredSecrets }).toEqual({ unit: unit.name, requiredSecrets: [...unit.requiredSecrets].sort() });
  }
});

test('every config and secret name in values.yaml is read by a unit', () => {
  const values = parse(readFileSync(path.join(chartDir, 'values.yaml'), 'utf8')) as {
    config: Record<string, unknown>;
    secrets: { values: Record<string, unknown> };
  };
  const read = new Set(Object.values(processes).flatMap(({ schema }) => Object.keys(schema.shape)));
  const names = [...Object.keys(values.config), ...Object.keys(values.secrets.values)];
  expect(names.filter((name) => !read.has(name))).toEqual([]);
});

const variants: [string, string[]][] = [
  ['default', []],
  ['production', [productionValues]],
  ['dev', [devValues]],
];

describe.each(variants)('with %s values', (variant, valuesFiles) => {
  let objects: K8sObject[];
  beforeAll(() => {
    objects = renderChart({ values: valuesFiles });
  });

  function workloadsOf(unit: string): K8sObject[] {
    return [
      findObject(objects, 'Deployment', `latchkey-${unit}`),
      ...objects.filter((object) => object.kind === 'Job' && componentOf(object) === `${unit}-migrate`),
    ];
  }

  describe.each(Object.keys(processes))('%s', (unit) => {
    const { schema, load, alsoRead } = processes[unit]!;

    test('its Deployment and migration Job get every variable the process requires', () => {
      const workloads = workloadsOf(unit);
      expect(workloads.length).toBe(unit === 'gateway' ? 1 : 2);
      for (const workload of workloads) {
        const environment = containerEnvironment(objects, mainContainer(workload));
        const missing = requiredVariables(schema).filter((name) => !environment.names.has(name));
        expect({ workload: workload.metadata.name, missing }).toEqual({ workload: workload.metadata.name, missing: [] });
      }
    });

    test('every variable the chart sets is one the process reads', () => {
      const known = new Set([...Object.keys(schema.shape), ...Object.keys(alsoRead?.shape ?? {})]);
      for (const workload of workloadsOf(unit)) {
        const environment = containerEnvironment(objects, mainContainer(workload));
        const unknown = [...environment.names].filter((name) => !known.has(name));
        expect({ workload: workload.metadata.name, unknown }).toEqual({ workload: workload.metadata.name, unknown: [] });
      }
    });

    test('the environment passes the process configuration check', () => {
      for (const workload of workloadsOf(unit)) {
        const environment = containerEnvironment(objects, mainContainer(workload));
        if (environment.external.size > 0) {
          // Values from the operator's Secret are not known here; the names are.
          expect(variant).toBe('production');
          for (const [name, reference] of environment.external) {
            expect({ name, secret: reference.secret }).toEqual({ name, secret: name === 'NATS_PASSWORD' ? 'latchkey-nats-users' : 'latchkey-env' });
          }
          continue;
        }
        expect(() => load(environment.values)).not.toThrow();
      }
    });

    test('credentials come from a Secret, never from a ConfigMap', () => {
      for (const workload of workloadsOf(unit)) {
        const environment = containerEnvironment(objects, mainContainer(workload));
        expect(credentials.filter((name) => environment.fromConfigMaps.has(name))).toEqual([]);
      }
    });

    test('a variable the process requires is never an optional Secret reference', () => {
      const required = new Set(requiredVariables(schema));
      for (const workload of workloadsOf(unit)) {
        const optional = (mainContainer(workload).env ?? [])
          .filter((variable) => variable.valueFrom?.secretKeyRef?.optional === true)
          .map((variable) => variable.name);
        expect(optional.filter((name) => required.has(name))).toEqual([]);
      }
    });
  });

  test.each(Object.entries(callers))('%s reaches each unit it calls at its Service gRPC port, and no other', (caller, callees) => {
    const environment = containerEnvironment(objects, mainContainer(findObject(objects, 'Deployment', `latchkey-${caller}`)));
    for (const unit of callees) {
      const service = findObject(objects, 'Service', `latchkey-${unit}`);
      const grpcPort = (service.spec as { ports: { name: string; port: number }[] }).ports.find((port) => port.name === 'grpc');
      expect(environment.values[`${unit.toUpperCase()}_GRPC_ADDRESS`]).toBe(`latchkey-${unit}:${grpcPort?.port}`);
      expect(grpcPort?.port).toBe(50051);
    }
    const addresses = [...environment.names].filter((name) => name.endsWith('_GRPC_ADDRESS')).sort();
    expect(addresses).toEqual(callees.map((unit) => `${unit.toUpperCase()}_GRPC_ADDRESS`).sort());
  });

  test('ports: the gateway listens on 8080 with metrics on 9464, each gRPC service on 50051 with metrics on 9464, jobs has metrics on 9464', () => {
    const portsOf = (unit: string) => containerEnvironment(objects, mainContainer(findObject(objects, 'Deployment', `latchkey-${unit}`))).values;
    expect(portsOf('gateway')).toMatchObject({ GATEWAY_PORT: '8080', METRICS_PORT: '9464' });
    for (const unit of grpcUnits) expect(portsOf(unit)).toMatchObject({ GRPC_PORT: '50051', METRICS_PORT: '9464' });
    expect(portsOf('jobs').METRICS_PORT).toBe('9464');
  });

  test('posts and the jobs worker use the same object store, and the gateway and posts the same content limit', () => {
    const environmentOf = (unit: string) => containerEnvironment(objects, mainContainer(findObject(objects, 'Deployment', `latchkey-${unit}`)));
    const posts = environmentOf('posts');
    const jobs = environmentOf('jobs');
    const s3 = ['S3_ENDPOINT', 'S3_REGION', 'S3_BUCKET', 'S3_FORCE_PATH_STYLE', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'];
    for (const name of s3) {
      expect({ name, value: jobs.values[name], external: jobs.external.get(name) }).toEqual({
        name,
        value: posts.values[name],
        external: posts.external.get(name),
      });
    }
    expect(posts.values.S3_BUCKET).toBeDefined();
    expect(environmentOf('gateway').values.POSTS_MAX_CONTENT_BYTES).toBe(posts.values.POSTS_MAX_CONTENT_BYTES);
  });

  test('the chart sets a 60-minute email verification token lifetime (docs/api.md, "Configuration")', () => {
    const identity = findObject(objects, 'Deployment', 'latchkey-identity');
    expect(containerEnvironment(objects, mainContainer(identity)).values.AUTH_EMAIL_VERIFICATION_TOKEN_EXPIRE_TIME).toBe('60');
  });

  test('mTLS files are set on every unit that speaks gRPC (all of them: the jobs worker calls services too) exactly when mTLS is on, and are mounted', () => {
    const mtls = variant === 'production';
    for (const unit of Object.keys(processes)) {
      const container = mainContainer(findObject(objects, 'Deployment', `latchkey-${unit}`));
      const environment = containerEnvironment(objects, container);
      const files = ['GRPC_TLS_CERT_FILE', 'GRPC_TLS_KEY_FILE', 'GRPC_TLS_CA_FILE'].map((name) => environment.values[name]);
      if (!mtls) {
        expect(files).toEqual([undefined, undefined, undefined]);
        continue;
      }
      expect(files).toEqual(['/etc/latchkey/tls/tls.crt', '/etc/latchkey/tls/tls.key', '/etc/latchkey/tls/ca.crt']);
      const mounts = container.volumeMounts?.map((mount) => mount.mountPath) ?? [];
      for (const file of files) expect(mounts).toContain(path.posix.dirname(file!));
    }
  });

  test('migration Jobs talk to the database only: no mTLS files, no certificate', () => {
    for (const job of objects.filter((object) => object.kind === 'Job')) {
      const container = mainContainer(job);
      const environment = containerEnvironment(objects, container);
      expect([...environment.names].filter((name) => name.startsWith('GRPC_TLS_'))).toEqual([]);
      expect(container.volumeMounts?.map((mount) => mount.mountPath)).toEqual(['/tmp']);
    }
  });
});

describe('oauth in production', () => {
  let objects: K8sObject[];
  beforeAll(() => {
    objects = renderChart({ values: [productionValues] });
  });

  /** The environment of oauth's Deployment, with stand-ins for what only the operator's Secret holds. */
  function environmentWithSecrets(secrets: Record<string, string>): Record<string, string> {
    const environment = containerEnvironment(objects, mainContainer(findObject(objects, 'Deployment', 'latchkey-oauth')));
    expect([...environment.external.keys()].sort()).toEqual(
      [
        'DATABASE_URL',
        'DATABASE_SESSION_URL',
        'GITHUB_CLIENT_SECRET',
        'GOOGLE_CLIENT_SECRET',
        'NATS_PASSWORD',
        'NATS_URL',
        'REDIS_PASSWORD',
        'REDIS_SENTINEL_PASSWORD',
        'REDIS_URL',
        // Enterprise SSO's keys: optional, SSO is off without them (docs/sso.md).
        'SSO_ENCRYPTION_KEY',
        'SSO_PREVIOUS_ENCRYPTION_KEYS',
      ].sort(),
    );
    return {
      ...environment.values,
      DATABASE_URL: 'postgres://latchkey:secret@db.internal:5432/latchkey',
      REDIS_URL: 'rediss://:secret@redis.internal:6380/0',
      NATS_URL: 'tls://nats.internal:4222',
      NATS_PASSWORD: 'nats-secret',
      ...secrets,
    };
  }

  test('values-production.yaml configures both providers: with the client secrets from the existingSecret, the process starts', () => {
    const environment = environmentWithSecrets({ GOOGLE_CLIENT_SECRET: 'google-secret', GITHUB_CLIENT_SECRET: 'github-secret' });
    expect(environment.NODE_ENV).toBe('production');
    expect(() => processes.oauth!.load(environment)).not.toThrow();
  });

  test('the client secrets are required keys of the existingSecret', () => {
    const environment = containerEnvironment(objects, mainContainer(findObject(objects, 'Deployment', 'latchkey-oauth')));
    for (const name of ['GOOGLE_CLIENT_SECRET', 'GITHUB_CLIENT_SECRET']) {
      expect(environment.external.get(name)).toEqual({ secret: 'latchkey-env', key: name, optional: false });
    }
    // Without them the process would refuse to start, so the pod must not start without them either.
    expect(() => processes.oauth!.load(environmentWithSecrets({}))).toThrow(/GOOGLE_CLIENT_SECRET/);
  });

  test('the redirect URIs are pages of the client application (under PUBLIC_APP_URL), over https', () => {
    const environment = environmentWithSecrets({});
    const gateway = containerEnvironment(objects, mainContainer(findObject(objects, 'Deployment', 'latchkey-gateway')));
    const appUrl = gateway.values.PUBLIC_APP_URL!;
    for (const name of ['GOOGLE_REDIRECT_URI', 'GITHUB_REDIRECT_URI']) {
      const uri = environment[name]!;
      expect({ name, page: uri.startsWith(`${appUrl.replace(/\/$/, '')}/`) }).toEqual({ name, page: true });
      expect(new URL(uri).protocol).toBe('https:');
      expect(new URL(uri).search).toBe('');
    }
  });
});

describe('a production topology (docs/operations.md, "Production topology")', () => {
  const topology = [
    'config.REDIS_MODE=cluster',
    'config.REDIS_CLUSTER_NODES=redis-0.redis:6379\\,redis-1.redis:6379\\,redis-2.redis:6379',
    'config.REDIS_TLS=true',
    'config.NATS_STREAM_REPLICAS=3',
    'config.NATS_TLS_CA_FILE=/etc/nats-ca/ca.crt',
    'secrets.values.NATS_URL=tls://nats-0.nats:4222\\,tls://nats-1.nats:4222\\,tls://nats-2.nats:4222',
    'secrets.values.REDIS_URL=',
    'secrets.values.REDIS_PASSWORD=redis-secret',
    'secrets.values.DATABASE_URL=postgres://latchkey:pw@pgbouncer:6432/latchkey',
    'secrets.values.DATABASE_SESSION_URL=postgres://latchkey:pw@db-rw:5432/latchkey',
    'secrets.values.DATABASE_READ_URL=postgres://latchkey:pw@db-ro:5432/latchkey',
  ];

  test('hands every unit the settings it reads, and each process starts with them', () => {
    const objects = renderChart({ set: topology });
    const secret = findObject(objects, 'Secret', 'latchkey-secrets');
    const secretValues = Object.fromEntries(
      Object.entries((secret.data ?? {}) as Record<string, string>).map(([key, value]) => [key, Buffer.from(value, 'base64').toString()]),
    );
    for (const unit of catalogue) {
      const environment = containerEnvironment(objects, mainContainer(findObject(objects, 'Deployment', `latchkey-${unit.name}`)));
      const values: Record<string, string | undefined> = { ...environment.values };
      for (const [name, ref] of environment.external) values[name] = ref.secret === 'latchkey-secrets' ? secretValues[ref.key] : undefined;
      const config = processes[unit.name]!.load(values) as Record<string, unknown>;
      expect({ unit: unit.name, mode: config.REDIS_MODE, nodes: config.REDIS_CLUSTER_NODES, password: config.REDIS_PASSWORD }).toEqual({
        unit: unit.name,
        mode: 'cluster',
        nodes: ['redis-0.redis:6379', 'redis-1.redis:6379', 'redis-2.redis:6379'],
        password: 'redis-secret',
      });
      if (unit.name === 'gateway') continue;
      expect({ unit: unit.name, nats: config.NATS_URL, replicas: config.NATS_STREAM_REPLICAS, session: config.DATABASE_SESSION_URL }).toEqual({
        unit: unit.name,
        nats: ['tls://nats-0.nats:4222', 'tls://nats-1.nats:4222', 'tls://nats-2.nats:4222'],
        replicas: 3,
        session: 'postgres://latchkey:pw@db-rw:5432/latchkey',
      });
      expect({ unit: unit.name, read: config.DATABASE_READ_URL }).toEqual({
        unit: unit.name,
        read: unit.name === 'posts' ? 'postgres://latchkey:pw@db-ro:5432/latchkey' : undefined,
      });
    }
  });

  test('the values schema refuses a Redis mode without its nodes', () => {
    expect(() => renderChart({ set: ['config.REDIS_MODE=sentinel'] })).toThrow(/REDIS_SENTINELS|REDIS_SENTINEL_MASTER/);
    expect(() => renderChart({ set: ['config.REDIS_MODE=cluster'] })).toThrow(/REDIS_CLUSTER_NODES/);
  });
});
