// Values are checked when the chart is rendered: bad ones stop `helm
// template` (and so `helm install`) with a message that names them, and
// supported variations render what they promise.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parser as promql } from '@prometheus-io/lezer-promql';
import { parse } from 'yaml';
import { loadOAuthConfig } from '../../services/oauth/src/config';
import { topology } from '@latchkey/job-streams';
import { testSigningKeys } from '@latchkey/test-kit';
import { units } from '@latchkey/units';
import { chartDir, findObject, productionValues, removeValuesFiles, renderChart, repoRoot, runHelm, templateArgs, writeValuesFile } from './helm';
import { unknownFields, validateWithModel } from './manifest-validation';
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
    expectRejected({ set: ['secrets.values.TOTP_ENCRYPTION_KEY='] }, /secrets\.values\.TOTP_ENCRYPTION_KEY is required by units\.totp/);
  });

  test('a TOTP key that is not 32 bytes of base64, and a badly separated list of retired keys', () => {
    expectRejected({ set: ['secrets.values.TOTP_ENCRYPTION_KEY=c2hvcnQ='] }, /TOTP_ENCRYPTION_KEY/);
    const key = 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=';
    expectRejected({ values: [writeValuesFile({ secrets: { values: { TOTP_PREVIOUS_ENCRYPTION_KEYS: `${key};${key}` } } })] }, /TOTP_PREVIOUS_ENCRYPTION_KEYS/);
  });

  test('a post content limit above the 3 MiB that posts and the gateway accept', () => {
    expectRejected({ set: ['config.POSTS_MAX_CONTENT_BYTES=4194304'] }, /POSTS_MAX_CONTENT_BYTES/);
  });

  test('an abuse limit or search bound out of its range', () => {
    expectRejected({ set: ['units.gateway.env.RATE_LIMIT_LOGIN_FAILURES=0'] }, /RATE_LIMIT_LOGIN_FAILURES/);
    expectRejected({ set: ['units.gateway.env.RATE_LIMIT_IPV6_PREFIX=129'] }, /RATE_LIMIT_IPV6_PREFIX/);
    expectRejected({ set: ['units.posts.env.SEARCH_STATEMENT_TIMEOUT_MS=5'] }, /SEARCH_STATEMENT_TIMEOUT_MS/);
    expectRejected({ set: ['units.totp.env.RATE_LIMIT_TOTP_FAILURES=many'] }, /RATE_LIMIT_TOTP_FAILURES/);
  });

  test('an optional secret that values do not define, or that a unit also needs', () => {
    expectRejected(
      { values: [writeValuesFile({ units: { posts: { optionalSecrets: ['S3_SESSION_TOKEN'] } } })] },
      /S3_SESSION_TOKEN/,
    );
    expectRejected(
      { values: [writeValuesFile({ units: { posts: { secrets: ['DATABASE_URL', 'NATS_URL', 'S3_ACCESS_KEY_ID'] } } })] },
      /units\.posts lists S3_ACCESS_KEY_ID in both secrets and optionalSecrets/,
    );
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
    expect(identity.external.get('DATABASE_URL')).toEqual({ secret: 'ops-managed', key: 'DATABASE_URL', optional: false });
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

  test('a gRPC unit can be disabled once no unit calls it', () => {
    expectRejected({ set: ['units.totp.enabled=false'] }, /units\.gateway\.calls totp, which is not an enabled unit/);
    expectRejected(
      { values: [writeValuesFile({ units: { totp: { enabled: false }, gateway: { calls: ['identity', 'posts', 'oauth'] } } })] },
      /units\.jobs\.calls totp, which is not an enabled unit/,
    );
    const objects = renderChart({
      values: [
        writeValuesFile({
          units: { totp: { enabled: false }, gateway: { calls: ['identity', 'posts', 'oauth'] }, jobs: { calls: ['posts', 'oauth'] } },
        }),
      ],
    });
    expect(objects.filter((object) => object.metadata.name.startsWith('latchkey-totp'))).toEqual([]);
    const gateway = containerEnvironment(objects, mainContainer(findObject(objects, 'Deployment', 'latchkey-gateway')));
    expect(gateway.names.has('TOTP_GRPC_ADDRESS')).toBe(false);
  });

  test('existingSecret without S3 keys: posts and jobs fall back to the SDK chain, other units are unaffected', () => {
    const objects = renderChart({ set: ['secrets.existingSecret=ops-managed'] });
    for (const unit of ['posts', 'jobs']) {
      const environment = containerEnvironment(objects, mainContainer(findObject(objects, 'Deployment', `latchkey-${unit}`)));
      expect(environment.external.get('S3_ACCESS_KEY_ID')).toEqual({ secret: 'ops-managed', key: 'S3_ACCESS_KEY_ID', optional: true });
      expect(environment.external.get('DATABASE_URL')).toEqual({ secret: 'ops-managed', key: 'DATABASE_URL', optional: false });
    }
  });

  test('an empty optional secret is left out of the chart Secret and unset in the pod', () => {
    const objects = renderChart({ set: ['secrets.values.S3_ACCESS_KEY_ID=', 'secrets.values.S3_SECRET_ACCESS_KEY='] });
    const secret = findObject(objects, 'Secret', 'latchkey-secrets');
    expect(Object.keys(secret.data as Record<string, string>)).not.toContain('S3_ACCESS_KEY_ID');
    const posts = containerEnvironment(objects, mainContainer(findObject(objects, 'Deployment', 'latchkey-posts')));
    expect(posts.names.has('S3_ACCESS_KEY_ID')).toBe(false);
    expect(posts.values.DATABASE_URL).toMatch(/^postgres:/);
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
        audit: {
          kind: 'grpc',
          image: { repository: 'latchkey/audit' },
          args: ['node', 'dist/main.js', 'serve'],
          ports: { grpc: { port: 50051, env: 'GRPC_PORT' }, metrics: { port: 9464, env: 'METRICS_PORT' } },
          grpcHealthService: 'audit.v1.AuditService',
          config: ['NODE_ENV', 'LOG_LEVEL'],
          secrets: ['DATABASE_URL', 'NATS_URL'],
          migrations: { enabled: true, args: ['node', 'dist/main.js', 'migrate'] },
        },
        gateway: { calls: ['identity', 'posts', 'totp', 'oauth', 'audit'] },
      },
    });
    const objects = renderChart({ values: [values] });
    for (const kind of ['Deployment', 'Service', 'ServiceAccount', 'ConfigMap', 'NetworkPolicy', 'PodDisruptionBudget']) {
      findObject(objects, kind, 'latchkey-audit');
    }
    findObject(objects, 'Job', 'latchkey-audit-migrate');
    const audit = mainContainer(findObject(objects, 'Deployment', 'latchkey-audit'));
    expect(audit.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'metrics' });
    const gateway = containerEnvironment(objects, mainContainer(findObject(objects, 'Deployment', 'latchkey-gateway')));
    expect(gateway.values.AUDIT_GRPC_ADDRESS).toBe('latchkey-audit:50051');
    expect(containerEnvironment(objects, audit).values.DATABASE_URL).toMatch(/^postgres:/);
    expect(podTemplate(findObject(objects, 'Deployment', 'latchkey-audit')).spec.securityContext?.runAsUser).toBe(10001);
  });

  test('a new unit that needs a credential nobody set is refused', () => {
    const values = writeValuesFile({
      units: {
        audit: {
          kind: 'grpc',
          image: { repository: 'latchkey/audit' },
          args: ['node', 'dist/main.js', 'serve'],
          ports: { grpc: { port: 50051 }, metrics: { port: 9464 } },
          secrets: ['GITHUB_CLIENT_SECRET'],
        },
      },
    });
    expectRejected({ values: [values] }, /secrets\.values\.GITHUB_CLIENT_SECRET is required by units\.audit/);
  });
});

describe('OAuth providers', () => {
  /** Production settings on top of the defaults: both providers, their secrets in the chart Secret. */
  const production = {
    config: {
      NODE_ENV: 'production',
      PUBLIC_APP_URL: 'https://accounts.example.com',
      GOOGLE_CLIENT_ID: 'google-client',
      GOOGLE_REDIRECT_URI: 'https://accounts.example.com/oauth/google/callback',
      GITHUB_CLIENT_ID: 'github-client',
      GITHUB_REDIRECT_URI: 'https://accounts.example.com/oauth/github/callback',
    },
    secrets: {
      values: {
        GOOGLE_CLIENT_SECRET: 'google-secret',
        GITHUB_CLIENT_SECRET: 'github-secret',
        // The development defaults are refused in production.
        DATABASE_URL: 'postgres://app:own-password@db.internal:5432/latchkey',
        REDIS_URL: 'rediss://:own-password@redis.internal:6380/0',
        S3_ACCESS_KEY_ID: 'own-key-id',
        S3_SECRET_ACCESS_KEY: 'own-secret-key',
        TOTP_ENCRYPTION_KEY: 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
        AUTH_JWT_SIGNING_KEYS: testSigningKeys('own'),
      },
    },
  };

  /** Production needs mutual TLS; the Secrets are the operator's (no cert-manager). */
  const productionMtls = { enabled: true, platformClients: { caSecretName: 'latchkey-platform-ca' } };

  function withProduction(overrides: {
    config?: Record<string, unknown>;
    secrets?: Record<string, unknown>;
    natsAuth?: Record<string, unknown>;
    mtls?: Record<string, unknown>;
  }): string {
    return writeValuesFile({
      config: { ...production.config, ...overrides.config },
      secrets: { ...production.secrets, ...overrides.secrets },
      mtls: { ...productionMtls, ...overrides.mtls },
      ...(overrides.natsAuth ? { natsAuth: overrides.natsAuth } : {}),
    });
  }

  test('in production, both providers render, with their secrets as required keys', () => {
    const objects = renderChart({ values: [withProduction({})] });
    const oauth = mainContainer(findObject(objects, 'Deployment', 'latchkey-oauth'));
    const environment = containerEnvironment(objects, oauth);
    expect(environment.values).toMatchObject({ GOOGLE_CLIENT_SECRET: 'google-secret', GITHUB_CLIENT_SECRET: 'github-secret' });
    const refs = (oauth.env ?? []).filter((variable) => variable.name.endsWith('_CLIENT_SECRET'));
    expect(refs.map((variable) => variable.valueFrom?.secretKeyRef?.optional ?? false)).toEqual([false, false]);
  });

  test('in production, a development secret published with the chart is refused, naming it', () => {
    const developmentKeys = JSON.parse(
      (parse(readFileSync(path.join(chartDir, 'values.yaml'), 'utf8')) as { secrets: { values: Record<string, string> } }).secrets.values.AUTH_JWT_SIGNING_KEYS!,
    ) as { kty: string }[];
    // The development RSA key copied beside an Ed25519 key of one's own is still published.
    const developmentRsaKey = JSON.stringify([...(JSON.parse(testSigningKeys('own')) as unknown[]), developmentKeys.find((key) => key.kty === 'RSA')]);
    for (const [key, value] of [
      ['TOTP_ENCRYPTION_KEY', 'bGF0Y2hrZXktZGV2LXRvdHAta2V5LW5vdC1zZWNyZXQ='],
      ['S3_SECRET_ACCESS_KEY', 'latchkey-dev-secret'],
      ['DATABASE_URL', 'postgres://latchkey:latchkey@latchkey-postgres:5432/latchkey'],
      ['AUTH_JWT_SIGNING_KEYS', JSON.stringify(developmentKeys)],
      ['AUTH_JWT_SIGNING_KEYS', developmentRsaKey],
    ] as const) {
      expectRejected(
        { values: [withProduction({ secrets: { values: { ...production.secrets.values, [key]: value } } })] },
        new RegExp(`secrets\\.values\\.${key} is a development default published with the chart`),
      );
    }
    // The same values render outside production: they are the development defaults.
    expect(renderChart({}).length).toBeGreaterThan(0);
  });

  test('with oidc.enabled, signing keys without an RSA key are refused: RS256 is every client’s default', () => {
    expectRejected(
      { values: [withProduction({})], set: ['oidc.enabled=true'] },
      /secrets\.values\.AUTH_JWT_SIGNING_KEYS needs an RSA key \(2048 bits or more\) with oidc\.enabled/,
    );
    const withRsa = JSON.stringify([...(JSON.parse(testSigningKeys('own')) as unknown[]), { kid: 'own-rs256', kty: 'RSA' }]);
    expect(renderChart({ values: [withProduction({ secrets: { values: { ...production.secrets.values, AUTH_JWT_SIGNING_KEYS: withRsa } } })], set: ['oidc.enabled=true'] }).length).toBeGreaterThan(0);
    // The chart's development values turn it on with their own RSA key.
    expect(renderChart({ set: ['oidc.enabled=true'] }).length).toBeGreaterThan(0);
  });

  test('NATS users need a password each, and production refuses the published development ones', () => {
    expectRejected({ set: ['natsAuth.enabled=true', 'natsAuth.passwords.posts='] }, /natsAuth\.passwords\.posts is required by units\.posts \(or set natsAuth\.existingSecret\)/);
    expectRejected(
      { values: [withProduction({ natsAuth: { enabled: true, existingSecret: '', passwords: { identity: 'latchkey-dev-nats-identity' } } })] },
      /natsAuth\.passwords\.identity is a development default published with the chart/,
    );
  });

  test('certificates from cert-manager need the issuer that signs them', () => {
    expectRejected(
      { set: ['mtls.enabled=true', 'mtls.platformClients.caSecretName=platform-ca', 'mtls.adminCli.enabled=false', 'mtls.certManager.enabled=true'] },
      /mtls\.certManager\.issuerRef\.name: name the cert-manager CA issuer/,
    );
    expectRejected(
      { set: ['mtls.enabled=true', 'mtls.platformClients.caSecretName=platform-ca', 'mtls.certManager.enabled=true', 'mtls.certManager.issuerRef.name=ca'] },
      /mtls\.certManager\.platformIssuerRef\.name is required for latchkey-admin's certificate/,
    );
  });

  test('production needs mutual TLS, and mutual TLS the platform clients’ CA', () => {
    expectRejected({ values: [withProduction({ mtls: { enabled: false } })] }, /mtls\.enabled is required when config\.NODE_ENV is production/);
    expectRejected({ set: ['mtls.enabled=true'] }, /mtls\.platformClients\.caSecretName is required with mtls\.enabled/);
    expect(renderChart({ values: [withProduction({})] }).some((object) => object.kind === 'Deployment')).toBe(true);
  });

  test('in production, a provider variable left empty is refused, naming it', () => {
    expectRejected({ values: [withProduction({ config: { GITHUB_REDIRECT_URI: '' } })] }, /config\.GITHUB_REDIRECT_URI is required by units\.oauth when config\.NODE_ENV is production/);
    expectRejected(
      { values: [withProduction({ secrets: { values: { ...production.secrets.values, GOOGLE_CLIENT_SECRET: '', GITHUB_CLIENT_SECRET: 'x' } } })] },
      /secrets\.values\.GOOGLE_CLIENT_SECRET is required by units\.oauth when config\.NODE_ENV is production/,
    );
  });

  test('in production, plain-HTTP provider endpoints and redirect URIs are refused', () => {
    expectRejected({ values: [withProduction({ config: { GOOGLE_ISSUER: 'http://keycloak.internal/realms/latchkey' } })] }, /GOOGLE_ISSUER/);
    expectRejected({ values: [withProduction({ config: { GITHUB_API_URL: 'http://github.internal/api/v3' } })] }, /GITHUB_API_URL/);
  });

  test('a redirect URI outside the client application, or with a query string, is refused', () => {
    expectRejected(
      { values: [withProduction({ config: { GOOGLE_REDIRECT_URI: 'https://evil.example.com/oauth/google/callback' } })] },
      /config\.GOOGLE_REDIRECT_URI .* must be a page of the client application/,
    );
    expectRejected({ values: [withProduction({ config: { GITHUB_REDIRECT_URI: 'https://accounts.example.com/cb?provider=github' } })] }, /GITHUB_REDIRECT_URI/);
  });

  test('a redirect URI under an origin of ALLOWED_ORIGINS is accepted', () => {
    const values = withProduction({
      config: { ALLOWED_ORIGINS: 'https://app.example.com', GOOGLE_REDIRECT_URI: 'https://app.example.com/oauth/google/callback' },
    });
    const objects = renderChart({ values: [values] });
    const environment = containerEnvironment(objects, mainContainer(findObject(objects, 'Deployment', 'latchkey-oauth')));
    expect(environment.values.GOOGLE_REDIRECT_URI).toBe('https://app.example.com/oauth/google/callback');
  });

  test('outside production, a provider may be off, and one may be on over plain HTTP (a local issuer)', () => {
    const objects = renderChart({
      values: [
        writeValuesFile({
          config: {
            GOOGLE_CLIENT_ID: 'dev-client',
            GOOGLE_REDIRECT_URI: 'http://localhost:8080/oauth/google/callback',
            GOOGLE_ISSUER: 'http://latchkey-oidc:8080/realms/dev',
          },
          secrets: { values: { GOOGLE_CLIENT_SECRET: 'dev-secret' } },
        }),
      ],
    });
    const oauth = mainContainer(findObject(objects, 'Deployment', 'latchkey-oauth'));
    const environment = containerEnvironment(objects, oauth);
    expect(environment.values).toMatchObject({ NODE_ENV: 'development', GOOGLE_CLIENT_SECRET: 'dev-secret', GOOGLE_ISSUER: 'http://latchkey-oidc:8080/realms/dev' });
    expect(environment.names.has('GITHUB_CLIENT_SECRET')).toBe(false);
    expect(() => loadOAuthConfig(environment.values)).not.toThrow();
  });

  test('requiredInProduction names only what the unit reads', () => {
    expectRejected(
      { values: [writeValuesFile({ units: { oauth: { requiredInProduction: ['SMTP_URL'] } } })] },
      /units\.oauth\.requiredInProduction lists SMTP_URL, which is not in its config, secrets or optionalSecrets/,
    );
  });
});

describe('names', () => {
  test('every object name fits 63 characters and the units stay distinct, for the longest release name Helm accepts', () => {
    // Without "latchkey" in it, the chart name is appended: the longest base name there is.
    const release = `platform-${'x'.repeat(44)}`;
    expect(release).toHaveLength(53);
    const objects = renderChart({
      release,
      set: [
        'natsAuth.enabled=true',
        'mtls.enabled=true',
        'mtls.certManager.enabled=true',
        'mtls.certManager.issuerRef.name=ca',
        'mtls.certManager.platformIssuerRef.name=platform-ca',
        'mtls.platformClients.caSecretName=platform-ca',
        'networkPolicy.egress.enabled=true',
      ],
    });
    for (const object of objects) expect({ name: object.metadata.name, length: object.metadata.name.length <= 63 }).toEqual({ name: object.metadata.name, length: true });
    const byKind = new Map<string, string[]>();
    for (const object of objects) byKind.set(object.kind, [...(byKind.get(object.kind) ?? []), object.metadata.name]);
    for (const [kind, names] of byKind) expect({ kind, duplicates: names.filter((name, index) => names.indexOf(name) !== index) }).toEqual({ kind, duplicates: [] });
    expect(objects.filter((object) => object.kind === 'Deployment')).toHaveLength(units.length);
    // Two long names that share their beginning still name different objects.
    const other = renderChart({ release: `platform-${'x'.repeat(43)}y` });
    const deployments = (list: typeof objects) => list.filter((object) => object.kind === 'Deployment').map((object) => object.metadata.name);
    expect(deployments(other).filter((name) => deployments(objects).includes(name))).toEqual([]);
  });
});


describe('extension points', () => {
  const extensions = {
    unitDefaults: {
      extraEnv: [
        { name: 'NODE_EXTRA_CA_CERTS', value: '/etc/ssl/corporate/ca.crt' },
        { name: 'DATABASE_URL_FROM_OPERATOR', valueFrom: { secretKeyRef: { name: 'cloudsql-app', key: 'uri' } } },
      ],
      extraEnvFrom: [{ configMapRef: { name: 'corporate-proxy' } }],
      extraVolumes: [{ name: 'corporate-ca', configMap: { name: 'corporate-ca' } }],
      extraVolumeMounts: [{ name: 'corporate-ca', mountPath: '/etc/ssl/corporate', readOnly: true }],
      extraContainers: [{ name: 'cloud-sql-proxy', image: 'gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1', args: ['--port=5432', 'project:region:db'] }],
      initContainers: [{ name: 'wait-for-proxy', image: 'busybox:1.37', command: ['sh', '-c', 'true'] }],
      priorityClassName: 'platform-critical',
      migrations: { podAnnotations: { 'linkerd.io/inject': 'disabled' }, podLabels: { 'sidecar.istio.io/inject': 'false' } },
    },
  };

  test('reach every unit’s pods and, but for sidecars, its migration Job, as valid Kubernetes objects', () => {
    const objects = renderChart({ values: [writeValuesFile(extensions)] });
    const failures: string[] = [];
    for (const object of objects) {
      try {
        validateWithModel(object);
      } catch (error) {
        failures.push(`${object.kind}/${object.metadata.name}: ${(error as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
    expect(objects.flatMap(unknownFields)).toEqual([]);

    const gateway = podTemplate(findObject(objects, 'Deployment', 'latchkey-gateway'));
    const main = mainContainerOf(gateway.spec.containers, 'gateway');
    expect(main.env).toEqual(expect.arrayContaining(extensions.unitDefaults.extraEnv));
    expect(main.envFrom).toEqual(expect.arrayContaining(extensions.unitDefaults.extraEnvFrom));
    expect(main.volumeMounts).toEqual(expect.arrayContaining(extensions.unitDefaults.extraVolumeMounts));
    expect(gateway.spec.volumes).toEqual(expect.arrayContaining(extensions.unitDefaults.extraVolumes));
    expect(gateway.spec.containers.map((container) => container.name)).toEqual(['gateway', 'cloud-sql-proxy']);
    expect((gateway.spec as { initContainers?: { name: string }[] }).initContainers?.map((container) => container.name)).toEqual(['wait-for-proxy']);
    expect((gateway.spec as { priorityClassName?: string }).priorityClassName).toBe('platform-critical');

    const migration = podTemplate(findObject(objects, 'Job', 'latchkey-identity-migrate'));
    // A sidecar would keep the Job from ever completing.
    expect(migration.spec.containers.map((container) => container.name)).toEqual(['migrate']);
    expect(migration.metadata.annotations).toMatchObject({ 'linkerd.io/inject': 'disabled' });
    expect(migration.metadata.labels).toMatchObject({ 'sidecar.istio.io/inject': 'false' });
    expect(migration.spec.containers[0]!.env).toEqual(expect.arrayContaining(extensions.unitDefaults.extraEnv));
    expect(migration.spec.volumes).toEqual(expect.arrayContaining(extensions.unitDefaults.extraVolumes));
  });

  test('leave the schema strict: a misspelt key is still refused', () => {
    expectRejected({ values: [writeValuesFile({ units: { gateway: { extraEnvs: [] } } })] }, /extraEnvs/);
    expectRejected({ values: [writeValuesFile({ units: { gateway: { extraEnv: [{ value: 'no name' }] } } })] }, /name/);
  });
});

function mainContainerOf(containers: readonly { name: string; env?: unknown[]; envFrom?: unknown[]; volumeMounts?: unknown[] }[], name: string) {
  const container = containers.find((candidate) => candidate.name === name);
  if (!container) throw new Error(`no container ${name}`);
  return container;
}

describe('secrets from elsewhere', () => {
  test('a variable can come from any Secret and key; the chart’s Secret leaves it out and Reloader is told what to watch', () => {
    const objects = renderChart({
      set: [
        'secrets.refs.DATABASE_URL.name=latchkey-db-app',
        'secrets.refs.DATABASE_URL.key=uri',
        'secrets.values.DATABASE_URL=',
        'secrets.reloader=true',
      ],
    });
    for (const object of objects.filter((candidate) => candidate.kind === 'Deployment' || candidate.kind === 'Job')) {
      const variable = mainContainer(object).env?.find((candidate) => candidate.name === 'DATABASE_URL');
      if (variable) expect({ object: object.metadata.name, ref: variable.valueFrom?.secretKeyRef }).toEqual({ object: object.metadata.name, ref: { name: 'latchkey-db-app', key: 'uri' } });
    }
    expect(Object.keys(findObject(objects, 'Secret', 'latchkey-secrets').data as Record<string, string>)).not.toContain('DATABASE_URL');
    const identity = findObject(objects, 'Deployment', 'latchkey-identity');
    expect(identity.metadata.annotations?.['secret.reloader.stakater.com/reload']).toBe('latchkey-db-app,latchkey-secrets');
    const gateway = findObject(objects, 'Deployment', 'latchkey-gateway');
    expect(gateway.metadata.annotations?.['secret.reloader.stakater.com/reload']).toBe('latchkey-secrets');
    // Without refs, the value is still required.
    expectRejected({ set: ['secrets.values.DATABASE_URL='] }, /secrets\.values\.DATABASE_URL is required/);
    expectRejected({ set: ['secrets.refs.DATABASE_URL.name=only-a-name'] }, /key/);
  });
});

/** Whether Prometheus' own PromQL grammar finds an error in `expr`. */
function isBrokenPromql(expr: string): boolean {
  let broken = false;
  promql.parse(expr).iterate({
    enter: (node) => {
      if (node.type.isError) broken = true;
    },
  });
  return broken;
}

describe('monitoring with the Prometheus Operator', () => {
  test('a ServiceMonitor scrapes each unit’s metrics port, and the PrometheusRule holds valid PromQL alerts', () => {
    const objects = renderChart({
      set: ['metrics.serviceMonitor.enabled=true', 'metrics.serviceMonitor.labels.release=kube-prometheus-stack', 'metrics.prometheusRule.enabled=true'],
    });
    const monitoring = objects.filter((object) => object.apiVersion === 'monitoring.coreos.com/v1');
    for (const object of monitoring) validateWithModel(object);
    expect(monitoring.flatMap(unknownFields)).toEqual([]);

    const monitors = objects.filter((object) => object.kind === 'ServiceMonitor');
    expect(monitors).toHaveLength(units.length);
    for (const monitor of monitors) {
      const spec = monitor.spec as { selector: { matchLabels: Record<string, string> }; endpoints: { port: string }[] };
      expect(monitor.metadata.labels).toMatchObject({ release: 'kube-prometheus-stack' });
      const services = objects.filter(
        (object) => object.kind === 'Service' && Object.entries(spec.selector.matchLabels).every(([key, value]) => object.metadata.labels?.[key] === value),
      );
      expect(services).toHaveLength(1);
      expect((services[0]!.spec as { ports: { name: string }[] }).ports.map((port) => port.name)).toContain(spec.endpoints[0]!.port);
    }

    const rule = findObject(objects, 'PrometheusRule', 'latchkey');
    const alerts = (rule.spec as { groups: { rules: { alert: string; expr: string }[] }[] }).groups.flatMap((group) => group.rules);
    expect(alerts.map((alert) => alert.alert)).toEqual(
      expect.arrayContaining(['LatchkeyGatewayErrors', 'LatchkeyGatewaySlow', 'LatchkeyLoginFailureSpike', 'LatchkeyJobLag', 'LatchkeyDeadLetters', 'LatchkeyPodRestarts']),
    );
    for (const { alert, expr } of alerts) expect({ alert, broken: isBrokenPromql(expr) }).toEqual({ alert, broken: false });
    expect(renderChart().filter((object) => object.apiVersion === 'monitoring.coreos.com/v1')).toEqual([]);
  });

  test('a Grafana dashboard of the golden signals ships as a ConfigMap for the dashboard sidecar, every query valid PromQL', () => {
    const objects = renderChart({ set: ['metrics.grafanaDashboard.enabled=true'] });
    const configMap = findObject(objects, 'ConfigMap', 'latchkey-dashboard');
    expect(configMap.metadata.labels).toMatchObject({ grafana_dashboard: '1' });
    const dashboard = JSON.parse((configMap.data as Record<string, string>)['latchkey.json']!) as {
      uid: string;
      panels: { type: string; title: string; targets?: { expr: string }[] }[];
    };
    expect(dashboard.uid).toBe('latchkey-golden-signals');
    expect(dashboard.panels.filter((panel) => panel.type === 'row').map((panel) => panel.title)).toEqual([
      'Gateway (HTTP)',
      'Services (gRPC)',
      'Jobs worker',
      'Saturation',
    ]);
    const expressions = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })));
    expect(expressions.length).toBeGreaterThan(10);
    for (const { panel, expr } of expressions) expect({ panel, broken: isBrokenPromql(expr) }).toEqual({ panel, broken: false });
    expect(renderChart().some((object) => object.metadata.name === 'latchkey-dashboard')).toBe(false);
  });
});

describe('scaling the worker on its backlog', () => {
  const declared = units.find((unit) => unit.name === 'jobs')!.consumers ?? [];

  test('the catalogue declares exactly the durable consumers the worker starts', () => {
    // Each job kind services/jobs/src/worker.ts hands to consumerFor(), built here to read its name and stream.
    const worker = readFileSync(path.join(repoRoot, 'services/jobs/src/worker.ts'), 'utf8');
    const factories = [...worker.matchAll(/consumerFor\(\s*(\w+Job)\(/g)].map((match) => match[1]!);
    expect(factories.length).toBeGreaterThanOrEqual(8);
    const folder = path.join(repoRoot, 'services/jobs/src');
    const started = factories.map((factory) => {
      const file = readdirSync(folder).find((candidate) => !candidate.endsWith('.test.ts') && readFileSync(path.join(folder, candidate), 'utf8').includes(`export function ${factory}(`))!;
      const make = jest.requireActual<Record<string, (deps: unknown) => { name: string; stream?: string }>>(path.join(folder, file))[factory]!;
      const job = make({});
      return { name: job.name, stream: job.stream ?? 'jobs' };
    });
    expect(declared.map(({ name, stream }) => ({ name, stream })).sort((a, b) => a.name.localeCompare(b.name))).toEqual(started.sort((a, b) => a.name.localeCompare(b.name)));
  });

  test.each([
    ['without', false],
    ['with', true],
  ])('KEDA scales the jobs worker on each durable consumer’s pending jobs (%s the OpenID Provider), with CPU as a fallback, and replaces its HPA', (_name, oidc) => {
    const objects = renderChart({ values: [productionValues], set: ['units.jobs.keda.enabled=true', 'units.jobs.keda.natsMonitoringEndpoint=nats.nats:8222', `oidc.enabled=${oidc}`] });
    const scaled = findObject(objects, 'ScaledObject', 'latchkey-jobs');
    validateWithModel(scaled);
    expect(unknownFields(scaled)).toEqual([]);
    const spec = scaled.spec as { scaleTargetRef: { name: string }; triggers: { type: string; metadata: Record<string, string> }[] };
    expect(spec.scaleTargetRef.name).toBe('latchkey-jobs');
    const names = topology('latchkey');
    const triggers = spec.triggers.filter((trigger) => trigger.type === 'nats-jetstream').map((trigger) => `${trigger.metadata.stream}/${trigger.metadata.consumer}`);
    // The durable names the worker gives its consumers (services/jobs: topology(prefix).consumer(job)), backchannel_logout among them with the OpenID Provider.
    const expected = declared
      .filter((consumer) => oidc || !consumer.onlyWithOidc)
      .map((consumer) => `${consumer.stream === 'events' ? names.eventsStream : names.jobsStream}/${names.consumer(consumer.name)}`);
    expect(triggers.sort()).toEqual(expected.sort());
    expect(triggers.includes(`${names.jobsStream}/${names.consumer('backchannel_logout')}`)).toBe(oidc);
    for (const trigger of spec.triggers.filter((candidate) => candidate.type === 'nats-jetstream')) {
      expect(trigger.metadata).toMatchObject({ natsServerMonitoringEndpoint: 'nats.nats:8222' });
    }
    expect(spec.triggers.map((trigger) => trigger.type)).toContain('cpu');
    expect(objects.filter((object) => object.kind === 'HorizontalPodAutoscaler').map((object) => object.metadata.name)).not.toContain('latchkey-jobs');
    expect(renderChart({ values: [productionValues] }).filter((object) => object.kind === 'ScaledObject')).toEqual([]);
  });
});
