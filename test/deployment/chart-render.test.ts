// Renders charts/latchkey with its default values, values-production.yaml and
// k8s/values-dev.yaml, and checks what a cluster would receive: valid
// objects without unknown fields, hardened pods, probes, network policies,
// autoscaling, disruption budgets and the migration hooks.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { calleesOf, units as catalogue } from '@latchkey/units';
import { chartDir, devValues, findObject, isHook, type K8sObject, productionValues, renderChart } from './helm';
import { unknownFields, validateWithModel } from './manifest-validation';
import { componentOf, containerEnvironment, mainContainer, podTemplate, type Probe, selects } from './workloads';

const chart = parse(readFileSync(path.join(chartDir, 'Chart.yaml'), 'utf8')) as { apiVersion: string; appVersion: string };

/** The shape of each unit the chart deploys, from the one list of units (packages/units). */
const units: Record<string, { kind: 'http' | 'grpc' | 'worker'; migrations: boolean; calls: readonly string[]; health?: string }> =
  Object.fromEntries(
    catalogue.map((unit) => [unit.name, { kind: unit.kind, migrations: unit.migrates, calls: calleesOf(unit), health: unit.grpcService }]),
  );

/** A unit speaks gRPC when it serves it or calls a unit that does. */
const speaksGrpc = (unit: string): boolean => units[unit]!.kind === 'grpc' || units[unit]!.calls.length > 0;
const unitNames = Object.keys(units);

const renders: Record<string, K8sObject[]> = {};
beforeAll(() => {
  renders.default = renderChart();
  renders.production = renderChart({ values: [productionValues] });
  renders.dev = renderChart({ values: [devValues] });
});

const variants = ['default', 'production', 'dev'] as const;

function objectsOf(variant: string): K8sObject[] {
  const objects = renders[variant];
  if (!objects) throw new Error(`no render for ${variant}`);
  return objects;
}

function deployment(objects: readonly K8sObject[], unit: string): K8sObject {
  return findObject(objects, 'Deployment', `latchkey-${unit}`);
}

function hookWeight(object: K8sObject): number {
  return Number(object.metadata.annotations?.['helm.sh/hook-weight'] ?? '0');
}

test('Chart.yaml is a v2 application chart with an appVersion', () => {
  expect(chart.apiVersion).toBe('v2');
  expect(chart.appVersion).toMatch(/^\d+\.\d+\.\d+/);
});

describe.each(variants)('helm template with %s values', (variant) => {
  test('every object validates against its kubernetes-models 4.5 model', () => {
    const failures: string[] = [];
    for (const object of objectsOf(variant)) {
      try {
        validateWithModel(object);
      } catch (error) {
        failures.push(`${object.kind}/${object.metadata.name}: ${(error as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  });

  test('no object has a field its API type does not declare', () => {
    expect(objectsOf(variant).flatMap(unknownFields)).toEqual([]);
  });

  test('object names are unique per kind', () => {
    const keys = objectsOf(variant).map((object) => `${object.kind}/${object.metadata.name}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  test.each(unitNames)('%s has a Deployment, Service, ServiceAccount, ConfigMap and NetworkPolicy', (unit) => {
    const objects = objectsOf(variant);
    const workload = deployment(objects, unit);
    const pod = podTemplate(workload);
    const service = findObject(objects, 'Service', `latchkey-${unit}`);
    const serviceSpec = service.spec as { selector: Record<string, string>; ports: { name: string; targetPort: string }[] };
    expect(selects(serviceSpec.selector, pod.metadata.labels)).toBe(true);
    const containerPorts = new Set(mainContainer(workload).ports?.map((port) => port.name));
    for (const port of serviceSpec.ports) expect(containerPorts.has(port.targetPort)).toBe(true);
    expect(findObject(objects, 'ServiceAccount', pod.spec.serviceAccountName ?? '')).toBeDefined();
    findObject(objects, 'ConfigMap', `latchkey-${unit}`);
    const policies = objects.filter(
      (object) =>
        object.kind === 'NetworkPolicy' &&
        selects((object.spec as { podSelector: { matchLabels: Record<string, string> } }).podSelector.matchLabels, pod.metadata.labels),
    );
    expect(policies).toHaveLength(1);
  });

  test('pods and containers run hardened', () => {
    const workloads = objectsOf(variant).filter((object) => object.kind === 'Deployment' || object.kind === 'Job');
    expect(workloads.length).toBeGreaterThanOrEqual(unitNames.length);
    for (const workload of workloads) {
      const pod = podTemplate(workload).spec;
      expect(pod.automountServiceAccountToken).toBe(false);
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001, seccompProfile: { type: 'RuntimeDefault' } });
      for (const container of pod.containers) {
        const context = container.securityContext;
        expect(context?.runAsNonRoot ?? pod.securityContext?.runAsNonRoot).toBe(true);
        expect(context?.runAsUser ?? pod.securityContext?.runAsUser).toBe(10001);
        expect(context?.allowPrivilegeEscalation).toBe(false);
        expect(context?.privileged ?? false).toBe(false);
        expect(context?.readOnlyRootFilesystem).toBe(true);
        expect(context?.capabilities?.drop).toContain('ALL');
        expect(context?.capabilities?.add ?? []).toEqual([]);
        // The only writable path is an emptyDir at /tmp.
        const tmp = container.volumeMounts?.find((mount) => mount.mountPath === '/tmp');
        expect(tmp).toBeDefined();
        const volume = pod.volumes?.find((candidate) => candidate.name === tmp?.name);
        expect(volume?.emptyDir).toBeDefined();
      }
    }
  });

  test('each unit runs its own image of the chart appVersion by default, with its command', () => {
    const objects = objectsOf(variant);
    for (const unit of unitNames) {
      const container = mainContainer(deployment(objects, unit));
      // Where .github/workflows/release.yml publishes them; values-production.yaml names a mirror.
      const registry = variant === 'production' ? 'registry.example.com/' : 'ghcr.io/';
      expect(container.image).toBe(`${registry}latchkey/${unit}:${chart.appVersion}`);
      expect(container.args).toEqual(unit === 'gateway' ? ['node', 'dist/main.js'] : ['node', 'dist/main.js', 'serve']);
    }
  });

  test('a migration hook Job runs `migrate` for every unit with migrations, and only for those', () => {
    const objects = objectsOf(variant);
    const jobs = objects.filter((object) => object.kind === 'Job');
    expect(jobs.map(componentOf).sort()).toEqual(
      unitNames
        .filter((unit) => units[unit]!.migrations)
        .map((unit) => `${unit}-migrate`)
        .sort(),
    );
    for (const job of jobs) {
      const unit = componentOf(job)!.replace(/-migrate$/, '');
      expect(job.metadata.annotations).toMatchObject({ 'helm.sh/hook': 'pre-install,pre-upgrade' });
      const deletePolicy = job.metadata.annotations?.['helm.sh/hook-delete-policy']?.split(',');
      expect(deletePolicy).toEqual(expect.arrayContaining(['before-hook-creation', 'hook-succeeded']));
      const container = mainContainer(job);
      expect(container.args).toEqual(['node', 'dist/main.js', 'migrate']);
      expect(container.image).toBe(mainContainer(deployment(objects, unit)).image);
      expect((job.spec as { template: { spec: { restartPolicy: string } } }).template.spec.restartPolicy).toBe('Never');
    }
  });

  test('what a migration hook reads is rendered as an earlier hook, or is managed outside the release', () => {
    const objects = objectsOf(variant);
    for (const job of objects.filter((object) => object.kind === 'Job')) {
      const pod = podTemplate(job).spec;
      const container = mainContainer(job);
      const needed: { kind: string; name: string }[] = [{ kind: 'ServiceAccount', name: pod.serviceAccountName ?? 'default' }];
      for (const source of container.envFrom ?? []) {
        if (source.configMapRef) needed.push({ kind: 'ConfigMap', name: source.configMapRef.name });
      }
      for (const variable of container.env ?? []) {
        const ref = variable.valueFrom?.secretKeyRef;
        if (ref) needed.push({ kind: 'Secret', name: ref.name });
      }
      for (const { kind, name } of needed) {
        const object = objects.find((candidate) => candidate.kind === kind && candidate.metadata.name === name);
        if (!object) {
          // Only the operator's Secret may be missing from the render.
          expect({ kind, name }).toEqual({ kind: 'Secret', name: 'latchkey-env' });
          expect(variant).toBe('production');
          continue;
        }
        expect(isHook(object)).toBe(true);
        expect(object.metadata.annotations?.['helm.sh/hook']).toContain('pre-install');
        expect(hookWeight(object)).toBeLessThan(hookWeight(job));
      }
    }
  });

  test('probes: HTTP on a declared port for every unit, the same with and without mTLS', () => {
    const objects = objectsOf(variant);
    for (const unit of unitNames) {
      const container = mainContainer(deployment(objects, unit));
      const ports = new Map(container.ports?.map((port) => [port.name, port.containerPort]));
      const probes: [string, Probe | undefined][] = [
        ['startup', container.startupProbe],
        ['liveness', container.livenessProbe],
        ['readiness', container.readinessProbe],
      ];
      for (const [name, probe] of probes) {
        expect(probe).toBeDefined();
        expect(probe?.grpc).toBeUndefined();
        const port = units[unit]!.kind === 'http' ? 'http' : 'metrics';
        expect(probe?.httpGet).toEqual({ path: name === 'readiness' ? '/readyz' : '/healthz', port });
        expect(ports.has(port)).toBe(true);
      }
      // docs/operations.md, "Probes": readiness means the same with mutual TLS and without.
      const withoutMtls = mainContainer(deployment(objectsOf('default'), unit));
      expect({ unit, probes: [container.startupProbe, container.livenessProbe, container.readinessProbe].map((probe) => probe?.httpGet) }).toEqual({
        unit,
        probes: [withoutMtls.startupProbe, withoutMtls.livenessProbe, withoutMtls.readinessProbe].map((probe) => probe?.httpGet),
      });
    }
  });

  test('a gRPC port accepts only the units that call it; every unit opens its metrics port to the scraper', () => {
    const objects = objectsOf(variant);
    const values = variant === 'production' ? { gatewayFrom: 1, metricsFrom: 1 } : { gatewayFrom: 0, metricsFrom: variant === 'dev' ? 0 : 1 };
    for (const unit of unitNames) {
      const pod = podTemplate(deployment(objects, unit));
      const policy = objects.find(
        (object) =>
          object.kind === 'NetworkPolicy' &&
          selects((object.spec as { podSelector: { matchLabels: Record<string, string> } }).podSelector.matchLabels, pod.metadata.labels),
      )!;
      const spec = policy.spec as {
        policyTypes: string[];
        ingress: { ports: { port: string }[]; from?: Record<string, unknown>[] }[];
      };
      // Production restricts egress too (tested below).
      expect(spec.policyTypes).toEqual(variant === 'production' ? ['Ingress', 'Egress'] : ['Ingress']);
      const rulesFor = (port: string) => spec.ingress.filter((rule) => rule.ports.some((candidate) => candidate.port === port));
      if (units[unit]!.kind === 'grpc') {
        const grpcRules = rulesFor('grpc');
        expect(grpcRules).toHaveLength(1);
        // Helm ranges over units by name.
        const callers = unitNames.filter((caller) => units[caller]!.calls.includes(unit)).sort();
        expect(callers.length).toBeGreaterThan(0);
        // The callers, and the `helm test` Pod (tests.enabled is on in every variant).
        expect(grpcRules[0]?.from).toEqual(
          [...callers, 'connection-test'].map((caller) => ({
            podSelector: {
              matchLabels: {
                'app.kubernetes.io/name': 'latchkey',
                'app.kubernetes.io/instance': 'latchkey',
                'app.kubernetes.io/component': caller,
              },
            },
          })),
        );
        // Each peer selects exactly the caller's pods: its Deployment, not its migration Job.
        for (const caller of callers) {
          const peer = grpcRules[0]!.from!.find((candidate) =>
            selects((candidate as { podSelector: { matchLabels: Record<string, string> } }).podSelector.matchLabels, podTemplate(deployment(objects, caller)).metadata.labels),
          );
          expect(peer).toBeDefined();
        }
        const jobPods = objects.filter((object) => object.kind === 'Job').map((job) => podTemplate(job).metadata.labels);
        for (const peer of grpcRules[0]!.from!) {
          const selector = (peer as { podSelector: { matchLabels: Record<string, string> } }).podSelector.matchLabels;
          expect(jobPods.filter((labels) => selects(selector, labels))).toEqual([]);
        }
      }
      if (units[unit]!.kind === 'http') {
        // The public port admits the gateway's peers only: the scraper reads the metrics port.
        const httpRules = rulesFor('http');
        expect(httpRules).toHaveLength(1);
        // Where networkPolicy.gateway.from restricts it, the `helm test` Pod is admitted beside those peers.
        expect(httpRules[0]?.from?.length ?? 0).toBe(values.gatewayFrom === 0 ? 0 : values.gatewayFrom + 1);
        // sessions.v1 is closed until networkPolicy.platformApi.from names the services that introspect sessions.
        expect(rulesFor('grpc')).toEqual([]);
      }
      // admin.v1 likewise: its port is closed until networkPolicy.platformApi.from names the callers.
      expect(rulesFor('admin')).toEqual([]);
      const metricsRules = rulesFor('metrics');
      expect(metricsRules).toHaveLength(1);
      // Where the scraper is named, the gateway's also admits the `helm test` Pod (its /dependencies).
      const testPod = units[unit]!.kind === 'http' && values.metricsFrom > 0 ? 1 : 0;
      expect(metricsRules[0]?.from?.length ?? 0).toBe(values.metricsFrom + testPod);
      // No rule opens a port the pod does not serve.
      const served = new Set(mainContainer(deployment(objects, unit)).ports?.map((port) => port.name));
      for (const rule of spec.ingress) for (const port of rule.ports) expect(served.has(port.port)).toBe(true);
    }
  });

  test('egress, on in production, lets each unit reach DNS, the units it calls and its own backing services only', () => {
    type Rule = { ports: { port: number | string; protocol: string }[]; to?: { podSelector?: { matchLabels: Record<string, string> } }[] };
    const egressOf = (objects: readonly K8sObject[], unit: string) => {
      const spec = findObject(objects, 'NetworkPolicy', `latchkey-${unit}`).spec as { policyTypes: string[]; egress?: Rule[] };
      return spec;
    };
    const production = objectsOf('production');
    const ports = (rules: Rule[]) => rules.flatMap((rule) => rule.ports.filter((port) => port.protocol === 'TCP').map((port) => port.port)).sort();
    const expected: Record<string, (number | string)[]> = {
      // DNS, Redis, the OTLP collector, and the five services it calls.
      gateway: [53, 6379, 4317, 4318, 'grpc', 'grpc', 'grpc', 'grpc', 'grpc'],
      identity: [53, 5432, 6379, 4222, 4317, 4318],
      oauth: [53, 5432, 6379, 4222, 443, 4317, 4318, 'grpc'],
      // identity alone: the credential ledger, which tells sign-ins whether TOTP may be on.
      totp: [53, 5432, 6379, 4222, 4317, 4318, 'grpc'],
      posts: [53, 5432, 6379, 4222, 443, 4317, 4318],
      // identity alone: the account and the credential ledger.
      passkeys: [53, 5432, 6379, 4222, 4317, 4318, 'grpc'],
      jobs: [53, 5432, 6379, 4222, 443, 25, 465, 587, 4317, 4318, 'grpc', 'grpc', 'grpc', 'grpc', 'grpc'],
    };
    for (const unit of unitNames) {
      const spec = egressOf(production, unit);
      expect(spec.policyTypes).toEqual(['Ingress', 'Egress']);
      expect({ unit, ports: ports(spec.egress ?? []) }).toEqual({ unit, ports: [...expected[unit]!].sort() });
      // A callee is reached by its pods' selector, no wider.
      const callees = (spec.egress ?? []).filter((rule) => rule.ports.some((port) => port.port === 'grpc')).map((rule) => rule.to?.[0]?.podSelector?.matchLabels['app.kubernetes.io/component']);
      expect({ unit, callees: callees.sort() }).toEqual({ unit, callees: [...units[unit]!.calls].sort() });
    }
    expect(egressOf(objectsOf('default'), 'gateway').policyTypes).toEqual(['Ingress']);
  });

  test('the gateway’s gRPC port (sessions.v1) opens to networkPolicy.platformApi.from only', () => {
    const objects = renderChart({ set: ['networkPolicy.platformApi.from[0].namespaceSelector.matchLabels.team=billing'] });
    const policy = findObject(objects, 'NetworkPolicy', 'latchkey-gateway').spec as { ingress: { ports: { port: string }[]; from?: unknown[] }[] };
    const grpc = policy.ingress.filter((rule) => rule.ports.some((port) => port.port === 'grpc'));
    expect(grpc).toEqual([{ ports: [{ port: 'grpc', protocol: 'TCP' }], from: [{ namespaceSelector: { matchLabels: { team: 'billing' } } }] }]);
  });

  test('a PodDisruptionBudget selects each unit when enabled, and every HPA targets a Deployment without fixed replicas', () => {
    const objects = objectsOf(variant);
    const budgets = objects.filter((object) => object.kind === 'PodDisruptionBudget');
    expect(budgets).toHaveLength(variant === 'dev' ? 0 : unitNames.length);
    for (const budget of budgets) {
      const selector = (budget.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels;
      const unit = componentOf(budget)!;
      expect(selects(selector, podTemplate(deployment(objects, unit)).metadata.labels)).toBe(true);
    }
    const autoscalers = objects.filter((object) => object.kind === 'HorizontalPodAutoscaler');
    expect(autoscalers).toHaveLength(variant === 'production' ? unitNames.length : 0);
    for (const autoscaler of autoscalers) {
      const spec = autoscaler.spec as { scaleTargetRef: { kind: string; name: string }; minReplicas: number; maxReplicas: number };
      expect(spec.scaleTargetRef.kind).toBe('Deployment');
      const target = findObject(objects, 'Deployment', spec.scaleTargetRef.name);
      expect((target.spec as { replicas?: number }).replicas).toBeUndefined();
      expect(spec.minReplicas).toBeLessThanOrEqual(spec.maxReplicas);
    }
    for (const unit of unitNames) {
      const replicas = (deployment(objects, unit).spec as { replicas?: number }).replicas;
      if (variant !== 'production') expect(replicas).toBeGreaterThanOrEqual(1);
    }
  });
});

describe('production values', () => {
  test('the Ingress routes to the gateway Service over TLS', () => {
    const objects = objectsOf('production');
    const ingress = findObject(objects, 'Ingress', 'latchkey-gateway');
    const spec = ingress.spec as {
      ingressClassName: string;
      tls: { secretName: string; hosts: string[] }[];
      rules: { host: string; http: { paths: { backend: { service: { name: string; port: { name: string } } } }[] } }[];
    };
    expect(spec.ingressClassName).toBe('nginx');
    expect(spec.tls[0]?.hosts).toContain(spec.rules[0]?.host);
    const backend = spec.rules[0]?.http.paths[0]?.backend.service;
    const service = findObject(objects, 'Service', backend?.name ?? '');
    expect((service.spec as { ports: { name: string }[] }).ports.map((port) => port.name)).toContain(backend?.port.name);
    // The web app and the API go out through the gateway's HTTP port, never the metrics port.
    expect(spec.rules.flatMap((rule) => rule.http.paths.map((entry) => (entry as { path?: string }).path))).toEqual(['/']);
    expect(spec.rules.flatMap((rule) => rule.http.paths.map((entry) => entry.backend.service.port.name))).toEqual(['http']);
  });

  test('helm test runs the connection check in the gateway image, against every gRPC unit, with the gateway certificate under mTLS', () => {
    const objects = objectsOf('production');
    const pod = findObject(objects, 'Pod', 'latchkey-connection-test');
    expect(pod.metadata.annotations).toMatchObject({ 'helm.sh/hook': 'test' });
    const spec = pod.spec as { restartPolicy: string; containers: { image: string; command: string[]; env: { name: string; value: string }[] }[]; volumes?: { secret?: { secretName: string } }[] };
    const container = spec.containers[0]!;
    expect(spec.restartPolicy).toBe('Never');
    expect(container.image).toBe(mainContainer(deployment(objects, 'gateway')).image);
    expect(container.command).toEqual(['node', 'dist/connection-check.js']);
    const env = Object.fromEntries(container.env.map((variable) => [variable.name, variable.value]));
    expect(env.CHECK_DEPENDENCIES_URL).toBe('http://latchkey-gateway:9464/dependencies');
    const grpcUnits = catalogue.filter((unit) => unit.kind === 'grpc');
    expect(env.CHECK_GRPC_TARGETS!.split(',').sort()).toEqual(grpcUnits.map((unit) => `latchkey-${unit.name}:50051=${unit.grpcService}`).sort());
    expect(env.GRPC_TLS_CERT_FILE).toBeDefined();
    expect(spec.volumes?.[0]?.secret?.secretName).toBe('latchkey-gateway-mtls');
    // The NetworkPolicies let it reach the gateway's public port even where that is restricted to the ingress.
    const gatewayPolicy = findObject(objects, 'NetworkPolicy', 'latchkey-gateway').spec as { ingress: { ports: { port: string }[]; from?: { podSelector?: { matchLabels: Record<string, string> } }[] }[] };
    for (const port of ['http', 'metrics']) {
      const peers = gatewayPolicy.ingress.filter((rule) => rule.ports.some((candidate) => candidate.port === port)).flatMap((rule) => rule.from ?? []);
      expect({ port, admitted: peers.some((peer) => selects(peer.podSelector?.matchLabels ?? { none: 'none' }, pod.metadata.labels ?? {})) }).toEqual({ port, admitted: true });
    }

    const off = renderChart({ set: ['tests.enabled=false'] });
    expect(off.some((object) => object.kind === 'Pod')).toBe(false);
    expect(JSON.stringify(off.filter((object) => object.kind === 'NetworkPolicy'))).not.toContain('connection-test');
  });

  test('web.enabled serves the web app from the gateway, and only from it', () => {
    const appSetting = (objects: K8sObject[], unit: string) =>
      (findObject(objects, 'ConfigMap', `latchkey-${unit}`).data as Record<string, string> | undefined)?.WEB_APP_ENABLED;
    const on = objectsOf('production');
    expect(appSetting(on, 'gateway')).toBe('true');
    expect(appSetting(on, 'identity')).toBeUndefined();
    expect(appSetting(renderChart({ set: ['web.enabled=false'] }), 'gateway')).toBe('false');
  });

  test('the chart renders no Secret of its own: units read the operator-managed existingSecret and NATS users Secret', () => {
    const objects = objectsOf('production');
    expect(objects.filter((object) => object.kind === 'Secret')).toEqual([]);
    const refs = objects
      .filter((object) => object.kind === 'Deployment' || object.kind === 'Job')
      .flatMap((object) => mainContainer(object).env ?? [])
      .map((variable) => variable.valueFrom?.secretKeyRef?.name);
    expect(new Set(refs)).toEqual(new Set(['latchkey-env', 'latchkey-nats-users']));
  });

  test('S3 keys, OpenSearch credentials, retired TOTP keys, the SSO keys, the webhook sealing key, OpenID client secrets and the topology settings are optional in the existingSecret; every other key (OAuth client secrets too) is required', () => {
    const objects = objectsOf('production');
    const optional = new Set([
      'S3_ACCESS_KEY_ID',
      'S3_SECRET_ACCESS_KEY',
      'OPENSEARCH_USERNAME',
      'OPENSEARCH_PASSWORD',
      'TOTP_PREVIOUS_ENCRYPTION_KEYS',
      // Enterprise SSO is off without them (docs/sso.md).
      'SSO_ENCRYPTION_KEY',
      'SSO_PREVIOUS_ENCRYPTION_KEYS',
      // Webhook messages wait for it (docs/operations.md, "Webhooks").
      'WEBHOOK_SEALING_PRIVATE_KEY',
      'OIDC_CLIENT_SECRETS',
      // docs/operations.md, "Production topology": each has a default (DATABASE_URL, none).
      'DATABASE_SESSION_URL',
      'DATABASE_READ_URL',
      'REDIS_PASSWORD',
      'REDIS_SENTINEL_PASSWORD',
    ]);
    const references = objects
      .filter((object) => object.kind === 'Deployment' || object.kind === 'Job')
      .flatMap((object) => mainContainer(object).env ?? [])
      .filter((variable) => variable.valueFrom?.secretKeyRef);
    for (const variable of references) {
      expect({ name: variable.name, optional: variable.valueFrom?.secretKeyRef?.optional ?? false }).toEqual({
        name: variable.name,
        optional: optional.has(variable.name),
      });
    }
    const posts = mainContainer(deployment(objects, 'posts')).env?.map((variable) => variable.name);
    const totp = mainContainer(deployment(objects, 'totp')).env?.map((variable) => variable.name);
    expect(posts).toEqual(expect.arrayContaining(['S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'OPENSEARCH_USERNAME', 'OPENSEARCH_PASSWORD']));
    expect(totp).toEqual(expect.arrayContaining(['TOTP_ENCRYPTION_KEY', 'TOTP_PREVIOUS_ENCRYPTION_KEYS']));
    const oauth = mainContainer(deployment(objects, 'oauth')).env?.map((variable) => variable.name);
    expect(oauth).toEqual(expect.arrayContaining(['GOOGLE_CLIENT_SECRET', 'GITHUB_CLIENT_SECRET']));
  });

  test('the ingress lets through the largest post body the gateway accepts', () => {
    const ingress = findObject(objectsOf('production'), 'Ingress', 'latchkey-gateway');
    const size = /^(\d+)([kmg]?)$/i.exec(ingress.metadata.annotations?.['nginx.ingress.kubernetes.io/proxy-body-size'] ?? '');
    expect(size).not.toBeNull();
    const bytes = Number(size![1]) * ({ '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 } as Record<string, number>)[size![2]!.toLowerCase()]!;
    const gateway = containerEnvironment(objectsOf('production'), mainContainer(deployment(objectsOf('production'), 'gateway')));
    const maxContent = Number(gateway.values.POSTS_MAX_CONTENT_BYTES ?? 1_048_576);
    // gateway/src/posts/post-routes.ts: twice the content limit plus 64 KiB.
    expect(bytes).toBeGreaterThanOrEqual(2 * maxContent + 64 * 1024);
  });

  test('mTLS mounts each unit’s own certificate Secret read-only into every unit that speaks gRPC, and only those', () => {
    const objects = objectsOf('production');
    // Today every unit does: the jobs worker calls posts, totp and oauth.
    expect(unitNames.filter(speaksGrpc)).toEqual(unitNames);
    for (const unit of unitNames) {
      const pod = podTemplate(deployment(objects, unit)).spec;
      const volume = pod.volumes?.find((candidate) => candidate.name === 'mtls');
      const mount = mainContainer(deployment(objects, unit)).volumeMounts?.find((candidate) => candidate.name === 'mtls');
      if (!speaksGrpc(unit)) {
        expect(volume).toBeUndefined();
      } else {
        expect(volume?.secret?.secretName).toBe(`latchkey-${unit}-mtls`);
        expect(mount).toEqual({ name: 'mtls', mountPath: '/etc/latchkey/tls', readOnly: true });
      }
    }
  });

  test('cert-manager issues each unit a certificate named for it, for its Service, for client and server use', () => {
    const certificates = objectsOf('production').filter((object) => object.kind === 'Certificate' && componentOf(object) !== 'admin-cli' && componentOf(object) !== 'ca');
    expect(certificates.map((certificate) => certificate.metadata.name).sort()).toEqual(unitNames.filter(speaksGrpc).map((unit) => `latchkey-${unit}-mtls`).sort());
    for (const unit of unitNames.filter(speaksGrpc)) {
      const { spec } = findObject(certificates, 'Certificate', `latchkey-${unit}-mtls`) as unknown as { spec: Record<string, unknown> };
      expect(spec).toMatchObject({
        secretName: `latchkey-${unit}-mtls`,
        // What the gRPC services compare with the units allowed to call them.
        commonName: unit,
        dnsNames: [`latchkey-${unit}`, `latchkey-${unit}.latchkey.svc`, `latchkey-${unit}.latchkey.svc.cluster.local`],
        usages: ['digital signature', 'server auth', 'client auth'],
        issuerRef: { name: 'latchkey-ca', kind: 'Issuer', group: 'cert-manager.io' },
      });
    }
    expect(objectsOf('default').filter((object) => object.kind === 'Certificate')).toEqual([]);
  });

  test('a drain takes one pod of a unit at a time, and autoscalers scale down only after five quiet minutes', () => {
    const objects = objectsOf('production');
    for (const budget of objects.filter((object) => object.kind === 'PodDisruptionBudget')) {
      expect(budget.spec).toMatchObject({ maxUnavailable: 1 });
      expect((budget.spec as Record<string, unknown>).minAvailable).toBeUndefined();
    }
    const autoscalers = objects.filter((object) => object.kind === 'HorizontalPodAutoscaler');
    expect(autoscalers.length).toBeGreaterThan(0);
    for (const autoscaler of autoscalers) {
      expect((autoscaler.spec as { behavior: unknown }).behavior).toMatchObject({
        scaleDown: { stabilizationWindowSeconds: 300 },
        scaleUp: { stabilizationWindowSeconds: 0 },
      });
    }
  });

  test('replicas spread over zones and nodes', () => {
    const pod = podTemplate(deployment(objectsOf('production'), 'gateway'));
    const constraints = (pod.spec as unknown as { topologySpreadConstraints: { topologyKey: string; labelSelector: { matchLabels: Record<string, string> } }[] })
      .topologySpreadConstraints;
    expect(constraints.map((constraint) => constraint.topologyKey)).toEqual(['topology.kubernetes.io/zone', 'kubernetes.io/hostname']);
    for (const constraint of constraints) expect(selects(constraint.labelSelector.matchLabels, pod.metadata.labels)).toBe(true);
  });
});

describe('default values', () => {
  test('the chart Secret holds only the keys that enabled units read, and the ConfigMaps hold no credentials', () => {
    const objects = objectsOf('default');
    const secret = findObject(objects, 'Secret', 'latchkey-secrets');
    // TOTP_PREVIOUS_ENCRYPTION_KEYS and OAuth's client secrets are empty (no provider in development), and optional: they are left out.
    expect(Object.keys(secret.data as Record<string, string>).sort()).toEqual([
      'AUTH_JWT_SIGNING_KEYS',
      'DATABASE_URL',
      'NATS_URL',
      'REDIS_URL',
      'S3_ACCESS_KEY_ID',
      'S3_SECRET_ACCESS_KEY',
      'SMTP_URL',
      'TOTP_ENCRYPTION_KEY',
    ]);
    const credentialNames = /^(DATABASE_URL|REDIS_URL|NATS_URL|SMTP_URL|S3_ACCESS_KEY_ID|S3_SECRET_ACCESS_KEY|TOTP_\w*ENCRYPTION_KEYS?|\w+_CLIENT_SECRET)$/;
    for (const configMap of objects.filter((object) => object.kind === 'ConfigMap')) {
      expect(Object.keys((configMap.data ?? {}) as Record<string, string>).filter((key) => credentialNames.test(key))).toEqual([]);
    }
  });

  test('a change of configuration changes the pod template (checksum annotation), so pods roll', () => {
    const before = podTemplate(deployment(objectsOf('default'), 'identity')).metadata.annotations ?? {};
    const after = podTemplate(deployment(renderChart({ set: ['config.LOG_LEVEL=debug'] }), 'identity')).metadata.annotations ?? {};
    expect(before['checksum/config']).toMatch(/^[0-9a-f]{64}$/);
    expect(after['checksum/config']).not.toBe(before['checksum/config']);
    expect(after['checksum/secrets']).toBe(before['checksum/secrets']);
  });
});

describe('the OpenID Provider (oidc.enabled)', () => {
  const client = { client_id: 'grafana', client_name: 'Grafana', redirect_uris: ['https://grafana.example.com/login/generic_oauth'], scope: 'openid profile email' };
  let objects: K8sObject[];
  beforeAll(() => {
    objects = renderChart({
      values: [productionValues],
      set: ['oidc.enabled=true', 'oidc.issuer=https://accounts.example.com', 'ingress.hosts[0].host=accounts.example.com', 'ingress.hosts[0].paths[0].path=/v0'],
      setJson: [`oidc.clients=${JSON.stringify([client])}`],
    });
  });

  test('hands the gateway the issuer and the clients from values, and the jobs worker the issuer', () => {
    const gateway = containerEnvironment(objects, mainContainer(deployment(objects, 'gateway')));
    expect(gateway.values).toMatchObject({ OIDC_ENABLED: 'true', OIDC_ISSUER: 'https://accounts.example.com', OIDC_REFRESH_TOKEN_TTL_DAYS: '30' });
    expect(JSON.parse(gateway.values.OIDC_CLIENTS ?? '[]')).toEqual([client]);
    expect(gateway.external.get('OIDC_CLIENT_SECRETS')).toBeDefined();
    const jobs = containerEnvironment(objects, mainContainer(deployment(objects, 'jobs')));
    expect(jobs.values).toMatchObject({ OIDC_ENABLED: 'true', OIDC_ISSUER: 'https://accounts.example.com' });
    expect(jobs.external.get('AUTH_JWT_SIGNING_KEYS')).toBeDefined();
  });

  test('routes the issuer’s paths through the Ingress to the gateway when a host does not route everything', () => {
    const ingress = findObject(objects, 'Ingress', 'latchkey-gateway');
    const paths = (ingress.spec as { rules: { http: { paths: { path: string; pathType: string }[] } }[] }).rules[0]!.http.paths;
    expect(paths.map(({ path: route, pathType }) => `${pathType} ${route}`)).toEqual([
      'Prefix /v0',
      'Exact /.well-known/openid-configuration',
      'Prefix /oidc',
      'Prefix /device',
    ]);
  });

  test('lets the jobs worker reach the clients’ back-channel logout endpoints, and only it', () => {
    const egress = (unit: string) =>
      ((findObject(objects, 'NetworkPolicy', `latchkey-${unit}`).spec as { egress?: { ports?: { port: number | string }[] }[] }).egress ?? []).flatMap(
        (rule) => (rule.ports ?? []).map((port) => port.port),
      );
    expect(egress('jobs')).toEqual(expect.arrayContaining([80, 443]));
    expect(egress('gateway')).not.toContain(80);
  });

  test('refuses a client secret in the values: secrets belong in a Secret', () => {
    expect(() => renderChart({ values: [productionValues], set: ['oidc.enabled=true'], setJson: [`oidc.clients=${JSON.stringify([{ ...client, client_secret: 'x'.repeat(32) }])}`] })).toThrow(
      /client_secret|not/,
    );
  });
});
