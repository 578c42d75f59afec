// Values are checked when the chart is rendered: bad ones stop `helm
// template` (and so `helm install`) with a message that names them, and
// supported variations render what they promise.
import { findObject, removeValuesFiles, renderChart, runHelm, templateArgs, writeValuesFile } from './helm';
import { containerEnvironment, mainContainer, podTemplate } from './workloads';

afterAll(removeValuesFiles);

function expectRejected(options: Parameters<typeof templateArgs>[0], message: RegExp): void {
  const result = runHelm(templateArgs(options));
  expect(result.status).not.toBe(0);
  expect(result.stderr).toMatch(message);
  expect(result.stdout).not.toMatch(/kind: Deployment/);
}

describe('helm template refuses bad values', () => {
  test('a string where a number belongs (replicaCount)', () => {
    expectRejected({ set: ['units.gateway.replicaCount=two'] }, /replicaCount.*want integer|replicaCount/);
  });

  test('a missing PUBLIC_APP_URL', () => {
    expectRejected({ set: ['config.PUBLIC_APP_URL=null'] }, /PUBLIC_APP_URL/);
  });

  test('a PUBLIC_APP_URL that is not an http(s) URL', () => {
    expectRejected({ set: ['config.PUBLIC_APP_URL=accounts.example.com'] }, /PUBLIC_APP_URL/);
  });

  test('a misspelt key in a unit block', () => {
    expectRejected({ values: [writeValuesFile({ units: { identity: { replicas: 3 } } })] }, /replicas/);
  });

  test('a misspelt top-level key', () => {
    expectRejected({ values: [writeValuesFile({ ingres: { enabled: true } })] }, /ingres/);
  });

  test('an unknown configuration variable', () => {
    expectRejected({ values: [writeValuesFile({ config: { PUBLIC_APP_ULR: 'https://x.example' } })] }, /PUBLIC_APP_ULR/);
  });

  test('a value outside its enum (NODE_ENV, LOG_LEVEL, pullPolicy)', () => {
    expectRejected({ set: ['config.NODE_ENV=staging'] }, /NODE_ENV/);
    expectRejected({ set: ['config.LOG_LEVEL=verbose'] }, /LOG_LEVEL/);
    expectRejected({ set: ['image.pullPolicy=Sometimes'] }, /pullPolicy/);
  });

  test('a backing-service URL of the wrong scheme', () => {
    expectRejected({ set: ['secrets.values.DATABASE_URL=mysql://db/latchkey'] }, /DATABASE_URL/);
  });

  test('an empty credential that a unit needs, without existingSecret', () => {
    expectRejected({ set: ['secrets.values.SMTP_URL='] }, /secrets\.values\.SMTP_URL is required by units\.jobs/);
  });

  test('a gRPC unit without a metrics port', () => {
    const values = writeValuesFile({ units: { identity: { ports: { grpc: { port: 50051, env: 'GRPC_PORT' }, metrics: null } } } });
    expectRejected({ values: [values] }, /metrics/);
  });

  test('a call to a unit that does not exist, and a config name that values do not define', () => {
    expectRejected({ values: [writeValuesFile({ units: { gateway: { calls: ['identity', 'billing'] } } })] }, /units\.gateway\.calls billing/);
    expectRejected({ values: [writeValuesFile({ units: { jobs: { config: ['NODE_ENV', 'SMTP_HOST'] } } })] }, /SMTP_HOST, which is not a key of config/);
  });

  test('autoscaling with minReplicas above maxReplicas', () => {
    const values = writeValuesFile({ units: { gateway: { autoscaling: { enabled: true, minReplicas: 5, maxReplicas: 2 } } } });
    expectRejected({ values: [values] }, /minReplicas is greater than maxReplicas/);
  });
});

describe('supported variations render', () => {
  test('existingSecret: no chart Secret, every credential read from the named Secret', () => {
    const objects = renderChart({ set: ['secrets.existingSecret=ops-managed', 'secrets.values.DATABASE_URL='] });
    expect(objects.filter((object) => object.kind === 'Secret')).toEqual([]);
    const identity = containerEnvironment(objects, mainContainer(findObject(objects, 'Deployment', 'latchkey-identity')));
    expect(identity.external.get('DATABASE_URL')).toEqual({ secret: 'ops-managed', key: 'DATABASE_URL' });
  });

  test('a global registry and a digest tag make the image reference', () => {
    const objects = renderChart({
      set: ['global.imageRegistry=registry.example.com/', 'units.jobs.image.tag=sha256:0123456789abcdef'],
    });
    expect(mainContainer(findObject(objects, 'Deployment', 'latchkey-jobs')).image).toBe(
      'registry.example.com/latchkey/jobs@sha256:0123456789abcdef',
    );
    expect(mainContainer(findObject(objects, 'Deployment', 'latchkey-gateway')).image).toMatch(
      /^registry\.example\.com\/latchkey\/gateway:\d/,
    );
  });

  test('a disabled unit renders nothing', () => {
    const objects = renderChart({ set: ['units.jobs.enabled=false'] });
    expect(objects.filter((object) => object.metadata.name.startsWith('latchkey-jobs'))).toEqual([]);
  });

  test('another release name prefixes every object and the gRPC address', () => {
    const objects = renderChart({ release: 'acme' });
    const gateway = findObject(objects, 'Deployment', 'acme-latchkey-gateway');
    findObject(objects, 'Service', 'acme-latchkey-identity');
    expect(containerEnvironment(objects, mainContainer(gateway)).values.IDENTITY_GRPC_ADDRESS).toBe('acme-latchkey-identity:50051');
  });

  test('a new gRPC unit is one values block: it gets every object, and its callers get its address', () => {
    const values = writeValuesFile({
      units: {
        totp: {
          kind: 'grpc',
          image: { repository: 'latchkey/totp' },
          args: ['node', 'dist/main.js', 'serve'],
          ports: { grpc: { port: 50051, env: 'GRPC_PORT' }, metrics: { port: 9464, env: 'METRICS_PORT' } },
          grpcHealthService: 'totp.v1.TotpService',
          config: ['NODE_ENV', 'TOTP_ISSUER'],
          secrets: ['DATABASE_URL', 'TOTP_ENCRYPTION_KEY'],
          migrations: { enabled: true, args: ['node', 'dist/main.js', 'migrate'] },
        },
        gateway: { calls: ['identity', 'totp'] },
      },
      secrets: { values: { TOTP_ENCRYPTION_KEY: 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=' } },
    });
    const objects = renderChart({ values: [values] });
    for (const kind of ['Deployment', 'Service', 'ServiceAccount', 'ConfigMap', 'NetworkPolicy', 'PodDisruptionBudget']) {
      findObject(objects, kind, 'latchkey-totp');
    }
    findObject(objects, 'Job', 'latchkey-totp-migrate');
    const totp = mainContainer(findObject(objects, 'Deployment', 'latchkey-totp'));
    expect(totp.readinessProbe?.grpc).toEqual({ port: 50051, service: 'totp.v1.TotpService' });
    const gateway = containerEnvironment(objects, mainContainer(findObject(objects, 'Deployment', 'latchkey-gateway')));
    expect(gateway.values.TOTP_GRPC_ADDRESS).toBe('latchkey-totp:50051');
    const totpEnvironment = containerEnvironment(objects, totp);
    expect(totpEnvironment.values.TOTP_ENCRYPTION_KEY).toBe('MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=');
    expect(podTemplate(findObject(objects, 'Deployment', 'latchkey-totp')).spec.securityContext?.runAsUser).toBe(10001);
  });

  test('a new unit that needs a credential nobody set is refused', () => {
    const values = writeValuesFile({
      units: {
        totp: {
          kind: 'grpc',
          image: { repository: 'latchkey/totp' },
          args: ['node', 'dist/main.js', 'serve'],
          ports: { grpc: { port: 50051 }, metrics: { port: 9464 } },
          secrets: ['TOTP_ENCRYPTION_KEY'],
        },
      },
    });
    expectRejected({ values: [values] }, /secrets\.values\.TOTP_ENCRYPTION_KEY is required by units\.totp/);
  });
});
