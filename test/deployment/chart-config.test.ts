// The chart and the processes agree on configuration: every variable a
// process requires reaches its Deployment and its migration Job, every
// variable the chart sets is one the process reads (no typos), and the
// environment the chart builds passes the process's own validation.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { type z } from 'zod';
import { configSchema as gatewaySchema, loadGatewayConfig } from '../../gateway/src/config';
import { configSchema as identitySchema, loadIdentityConfig } from '../../services/identity/src/config';
import { configSchema as jobsSchema, loadJobsConfig } from '../../services/jobs/src/config';
import { chartDir, devValues, findObject, type K8sObject, productionValues, renderChart } from './helm';
import { componentOf, containerEnvironment, mainContainer } from './workloads';

interface ProcessConfig {
  schema: z.ZodObject;
  load: (environment: Record<string, string | undefined>) => unknown;
}

const processes: Record<string, ProcessConfig> = {
  gateway: { schema: gatewaySchema, load: loadGatewayConfig },
  identity: { schema: identitySchema, load: loadIdentityConfig },
  jobs: { schema: jobsSchema, load: loadJobsConfig },
};

/** Variables a process cannot start without (no default, not optional). */
function requiredVariables(schema: z.ZodObject): string[] {
  return Object.entries(schema.shape)
    .filter(([, field]) => !(field as z.ZodType).safeParse(undefined).success)
    .map(([name]) => name)
    .sort();
}

/**
 * Variables of API.md part 7 that no present unit reads yet: the oauth,
 * totp and posts services will. The chart's values carry them already so
 * that operators set them in one place; this list keeps their names honest.
 */
const variablesOfLaterUnits = new Set([
  'OAUTH_PENDING_SIGNUP_TTL_MINUTES',
  'GOOGLE_CLIENT_ID',
  'GOOGLE_CLIENT_SECRET',
  'GOOGLE_REDIRECT_URI',
  'GOOGLE_ISSUER',
  'GOOGLE_AUTHORIZATION_URL',
  'GOOGLE_TOKEN_URL',
  'GOOGLE_USERINFO_URL',
  'GOOGLE_JWKS_URL',
  'GITHUB_CLIENT_ID',
  'GITHUB_CLIENT_SECRET',
  'GITHUB_REDIRECT_URI',
  'GITHUB_AUTHORIZATION_URL',
  'GITHUB_TOKEN_URL',
  'GITHUB_API_URL',
  'S3_ENDPOINT',
  'S3_REGION',
  'S3_BUCKET',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'S3_FORCE_PATH_STYLE',
  'TOTP_ISSUER',
  'TOTP_ENCRYPTION_KEY',
  'TOTP_TEMP_TOKEN_TTL_SECONDS',
  'POSTS_MAX_CONTENT_BYTES',
]);

test('the required variables are the ones this test expects (the schemas are read, not copied)', () => {
  expect(requiredVariables(gatewaySchema)).toEqual(['PUBLIC_APP_URL', 'REDIS_URL']);
  expect(requiredVariables(identitySchema)).toEqual(['DATABASE_URL', 'NATS_URL']);
  expect(requiredVariables(jobsSchema)).toEqual(['DATABASE_URL', 'NATS_URL', 'PUBLIC_APP_URL', 'SMTP_URL']);
});

test('every config and secret name in values.yaml is read by a unit, or by a unit still to come', () => {
  const values = parse(readFileSync(path.join(chartDir, 'values.yaml'), 'utf8')) as {
    config: Record<string, unknown>;
    secrets: { values: Record<string, unknown> };
  };
  const read = new Set(Object.values(processes).flatMap(({ schema }) => Object.keys(schema.shape)));
  const names = [...Object.keys(values.config), ...Object.keys(values.secrets.values)];
  expect(names.filter((name) => !read.has(name) && !variablesOfLaterUnits.has(name))).toEqual([]);
  // Names of later units that a present unit reads have left the list above.
  expect([...variablesOfLaterUnits].filter((name) => read.has(name))).toEqual([]);
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
    const { schema, load } = processes[unit]!;

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
      const known = new Set(Object.keys(schema.shape));
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
          for (const reference of environment.external.values()) expect(reference.secret).toBe('latchkey-env');
          continue;
        }
        expect(() => load(environment.values)).not.toThrow();
      }
    });

    test('credentials come from a Secret, never from a ConfigMap', () => {
      const credentials = ['DATABASE_URL', 'REDIS_URL', 'NATS_URL', 'SMTP_URL'];
      for (const workload of workloadsOf(unit)) {
        const environment = containerEnvironment(objects, mainContainer(workload));
        expect(credentials.filter((name) => environment.fromConfigMaps.has(name))).toEqual([]);
      }
    });
  });

  test('the gateway reaches identity at the identity Service gRPC port', () => {
    const environment = containerEnvironment(objects, mainContainer(findObject(objects, 'Deployment', 'latchkey-gateway')));
    const service = findObject(objects, 'Service', 'latchkey-identity');
    const grpcPort = (service.spec as { ports: { name: string; port: number }[] }).ports.find((port) => port.name === 'grpc');
    expect(environment.values.IDENTITY_GRPC_ADDRESS).toBe(`latchkey-identity:${grpcPort?.port}`);
    expect(grpcPort?.port).toBe(50051);
  });

  test('ports: the gateway listens on 8080, identity on 50051 with metrics on 9464, jobs has metrics on 9464', () => {
    const portsOf = (unit: string) => containerEnvironment(objects, mainContainer(findObject(objects, 'Deployment', `latchkey-${unit}`))).values;
    expect(portsOf('gateway').GATEWAY_PORT).toBe('8080');
    expect(portsOf('identity')).toMatchObject({ GRPC_PORT: '50051', METRICS_PORT: '9464' });
    expect(portsOf('jobs').METRICS_PORT).toBe('9464');
  });

  test('the chart sets a 60-minute email verification token lifetime (API.md part 7)', () => {
    const identity = findObject(objects, 'Deployment', 'latchkey-identity');
    expect(containerEnvironment(objects, mainContainer(identity)).values.AUTH_EMAIL_VERIFICATION_TOKEN_EXPIRE_TIME).toBe('60');
  });

  test('mTLS files are set on every unit that speaks gRPC exactly when mTLS is on, and are mounted', () => {
    const mtls = variant === 'production';
    for (const unit of ['gateway', 'identity', 'jobs']) {
      const container = mainContainer(findObject(objects, 'Deployment', `latchkey-${unit}`));
      const environment = containerEnvironment(objects, container);
      const files = ['GRPC_TLS_CERT_FILE', 'GRPC_TLS_KEY_FILE', 'GRPC_TLS_CA_FILE'].map((name) => environment.values[name]);
      if (!mtls || unit === 'jobs') {
        expect(files).toEqual([undefined, undefined, undefined]);
        continue;
      }
      expect(files).toEqual(['/etc/latchkey/tls/tls.crt', '/etc/latchkey/tls/tls.key', '/etc/latchkey/tls/ca.crt']);
      const mounts = container.volumeMounts?.map((mount) => mount.mountPath) ?? [];
      for (const file of files) expect(mounts).toContain(path.posix.dirname(file!));
    }
  });
});
