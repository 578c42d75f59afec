// The chart in clusters that allow little: default-deny NetworkPolicies,
// platforms that assign the pod user (OpenShift), policy engines that want
// labels on everything, and autoscalers the Deployment must not fight. Each
// value is in values.schema.json, which refuses a misspelt or mistyped one.
import { findObject, isHook, type K8sObject, productionValues, removeValuesFiles, renderChart, runHelm, templateArgs, writeValuesFile } from './helm';
import { unknownFields, validateWithModel } from './manifest-validation';
import { componentOf, podTemplate, selects } from './workloads';

afterAll(removeValuesFiles);

type Rule = { ports?: { port: number | string; protocol?: string }[]; to?: unknown[]; from?: unknown[] };
type PolicySpec = { podSelector: { matchLabels: Record<string, string> }; policyTypes: string[]; ingress?: Rule[]; egress?: Rule[] };

function expectRejected(options: Parameters<typeof templateArgs>[0], message: RegExp): void {
  const result = runHelm(templateArgs(options));
  expect(result.status).not.toBe(0);
  expect(result.stderr).toMatch(message);
}

function expectValid(objects: readonly K8sObject[]): void {
  for (const object of objects) validateWithModel(object);
  expect(objects.flatMap(unknownFields)).toEqual([]);
}

const workloads = (objects: readonly K8sObject[]) => objects.filter((object) => object.kind === 'Deployment' || object.kind === 'Job');

describe('a namespace that denies egress by default', () => {
  const proxy = { to: [{ ipBlock: { cidr: '10.40.0.0/16' } }], ports: [{ port: 6432, protocol: 'TCP' }] };
  let objects: K8sObject[];
  beforeAll(() => {
    objects = renderChart({
      values: [productionValues, writeValuesFile({ unitDefaults: { extraEgress: [proxy] }, units: { gateway: { extraIngress: [{ from: [{ ipBlock: { cidr: '192.0.2.0/24' } }], ports: [{ port: 'http' }] }] } } })],
    });
  });

  test('each migration Job has a NetworkPolicy of its own, a hook before it: DNS, PostgreSQL and its extraEgress, and no ingress', () => {
    const jobs = objects.filter((object) => object.kind === 'Job');
    expect(jobs.length).toBeGreaterThan(0);
    for (const job of jobs) {
      const labels = podTemplate(job).metadata.labels;
      const policies = objects.filter((object) => object.kind === 'NetworkPolicy' && selects((object.spec as PolicySpec).podSelector.matchLabels, labels));
      expect({ job: job.metadata.name, policies: policies.map((policy) => policy.metadata.name) }).toEqual({ job: job.metadata.name, policies: [job.metadata.name] });
      const policy = policies[0]!;
      expectValid([policy]);
      expect(isHook(policy)).toBe(true);
      expect(Number(policy.metadata.annotations?.['helm.sh/hook-weight'])).toBeLessThan(Number(job.metadata.annotations?.['helm.sh/hook-weight']));
      const spec = policy.spec as PolicySpec;
      expect(spec.policyTypes).toEqual(['Ingress', 'Egress']);
      expect(spec.ingress).toEqual([]);
      const tcp = (spec.egress ?? []).flatMap((rule) => (rule.ports ?? []).filter((port) => port.protocol === 'TCP').map((port) => port.port));
      expect(tcp.sort()).toEqual([53, 5432, 6432].sort());
      // The unit's Deployment is not selected by the Job's policy, nor the Job by the unit's.
      const unit = componentOf(job)!.replace(/-migrate$/, '');
      expect(selects(spec.podSelector.matchLabels, podTemplate(findObject(objects, 'Deployment', `latchkey-${unit}`)).metadata.labels)).toBe(false);
    }
  });

  test('extraEgress and extraIngress join each unit’s own rules', () => {
    for (const unit of ['gateway', 'identity', 'jobs']) {
      const spec = findObject(objects, 'NetworkPolicy', `latchkey-${unit}`).spec as PolicySpec;
      expect(spec.egress).toContainEqual(proxy);
    }
    const gateway = findObject(objects, 'NetworkPolicy', 'latchkey-gateway').spec as PolicySpec;
    expect(gateway.ingress).toContainEqual({ from: [{ ipBlock: { cidr: '192.0.2.0/24' } }], ports: [{ port: 'http' }] });
    expect((findObject(objects, 'NetworkPolicy', 'latchkey-identity').spec as PolicySpec).ingress).not.toContainEqual(expect.objectContaining({ from: [{ ipBlock: { cidr: '192.0.2.0/24' } }] }));
    expectValid(objects.filter((object) => object.kind === 'NetworkPolicy'));
  });

  test('without the egress allow-list there is no migration policy, which would otherwise cut the Jobs off', () => {
    expect(renderChart().some((object) => object.kind === 'NetworkPolicy' && componentOf(object)?.endsWith('-migrate'))).toBe(false);
  });
});

describe('the platform APIs’ ports', () => {
  test('admin.v1 on identity’s admin port and sessions.v1 on the gateway’s gRPC port open to networkPolicy.platformApi.from only', () => {
    const platform = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'billing' } } };
    const objects = renderChart({ values: [writeValuesFile({ networkPolicy: { platformApi: { from: [platform] } } })] });
    const rulesOf = (unit: string, port: string) =>
      ((findObject(objects, 'NetworkPolicy', `latchkey-${unit}`).spec as PolicySpec).ingress ?? []).filter((rule) => (rule.ports ?? []).some((candidate) => candidate.port === port));
    expect(rulesOf('identity', 'admin')).toEqual([{ ports: [{ port: 'admin', protocol: 'TCP' }], from: [platform] }]);
    expect(rulesOf('gateway', 'grpc')).toEqual([{ ports: [{ port: 'grpc', protocol: 'TCP' }], from: [platform] }]);
    // identity's own gRPC port: its callers and the `helm test` Pod, never the platform's clients.
    expect(JSON.stringify(rulesOf('identity', 'grpc'))).not.toContain('billing');
    const identity = findObject(objects, 'Service', 'latchkey-identity').spec as { ports: { name: string; port: number }[] };
    expect(identity.ports.find((port) => port.name === 'admin')?.port).toBe(50052);
  });

  test('with mTLS, the units serving them mount the platform clients’ CA (only its ca.crt), and identity latchkey-admin’s certificate', () => {
    const objects = renderChart({ values: [productionValues] });
    for (const unit of ['gateway', 'identity', 'posts']) {
      const pod = podTemplate(findObject(objects, 'Deployment', `latchkey-${unit}`)).spec;
      const volume = pod.volumes?.find((candidate) => candidate.name === 'platform-ca') as { secret?: { secretName: string; items?: { key: string }[] } } | undefined;
      if (unit === 'posts') {
        expect(volume).toBeUndefined();
        continue;
      }
      expect(volume?.secret).toEqual({ secretName: 'latchkey-platform-ca', items: [{ key: 'ca.crt', path: 'ca.crt' }] });
    }
    const identity = podTemplate(findObject(objects, 'Deployment', 'latchkey-identity')).spec;
    expect(identity.volumes?.find((candidate) => candidate.name === 'admin-cli')?.secret?.secretName).toBe('latchkey-admin-cli-mtls');
    const certificate = findObject(objects, 'Certificate', 'latchkey-admin-cli');
    expectValid([certificate]);
    expect(certificate.spec).toMatchObject({
      secretName: 'latchkey-admin-cli-mtls',
      uris: ['urn:latchkey:admin-cli'],
      usages: ['digital signature', 'client auth'],
      issuerRef: { name: 'latchkey-platform-ca', kind: 'Issuer' },
    });
  });

  test('an ADMIN_GRPC_ALLOWED_CALLERS that is not a JSON object of lists is refused', () => {
    expectRejected({ set: ['units.identity.env.ADMIN_GRPC_ALLOWED_CALLERS=identity'] }, /ADMIN_GRPC_ALLOWED_CALLERS/);
    expectRejected({ values: [writeValuesFile({ units: { identity: { env: { ADMIN_GRPC_ALLOWED_CALLERS: '{"*": "urn:latchkey:admin-cli"}' } } } })] }, /ADMIN_GRPC_ALLOWED_CALLERS: \* must list/);
  });
});

describe('the pod user', () => {
  test('is 10001 by default, and left to the platform when set to null (OpenShift), never root', () => {
    const unset = renderChart({ values: [writeValuesFile({ podSecurity: { runAsUser: null, runAsGroup: null, fsGroup: null } })] });
    expectValid(workloads(unset));
    for (const workload of workloads(unset)) {
      const pod = podTemplate(workload).spec;
      expect(pod.securityContext).toEqual({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      for (const container of pod.containers) {
        expect(container.securityContext?.runAsUser).toBeUndefined();
        expect(container.securityContext).toMatchObject({ runAsNonRoot: true, allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
      }
    }
    const own = renderChart({ values: [writeValuesFile({ podSecurity: { runAsUser: 1000650000, runAsGroup: 0, fsGroup: 1000650000 } })] });
    const pod = podTemplate(findObject(own, 'Deployment', 'latchkey-identity')).spec;
    expect(pod.securityContext).toMatchObject({ runAsUser: 1000650000, runAsGroup: 0, fsGroup: 1000650000 });
    expectRejected({ set: ['podSecurity.runAsUser=nobody'] }, /runAsUser/);
  });
});

describe('labels, annotations, Services and objects of your own', () => {
  test('commonLabels and commonAnnotations reach every object, hooks and the test Pod included; the chart’s own and Helm’s win', () => {
    const objects = renderChart({
      values: [
        productionValues,
        writeValuesFile({
          commonLabels: { 'example.com/team': 'identity', 'app.kubernetes.io/name': 'not-latchkey' },
          commonAnnotations: { 'example.com/owner': 'platform', 'helm.sh/hook-weight': '99' },
          metrics: { serviceMonitor: { enabled: true }, prometheusRule: { enabled: true }, grafanaDashboard: { enabled: true } },
        }),
      ],
    });
    for (const object of objects) {
      expect({ object: `${object.kind}/${object.metadata.name}`, team: object.metadata.labels?.['example.com/team'] }).toEqual({
        object: `${object.kind}/${object.metadata.name}`,
        team: 'identity',
      });
      expect(object.metadata.labels?.['app.kubernetes.io/name']).toBe('latchkey');
      expect(object.metadata.annotations?.['example.com/owner']).toBe('platform');
      // Helm's own annotations stay the chart's: a common one would make every object a hook, or reorder them.
      expect(object.metadata.annotations?.['helm.sh/hook-weight']).not.toBe('99');
    }
    expectValid(objects);
  });

  test('a LoadBalancer gateway Service exposes only the HTTP port; metrics and sessions.v1 stay on the ClusterIP Service', () => {
    const objects = renderChart({
      values: [writeValuesFile({ units: { gateway: { service: { type: 'LoadBalancer', annotations: { 'service.beta.kubernetes.io/aws-load-balancer-scheme': 'internal' }, loadBalancerSourceRanges: ['203.0.113.0/24'] } } } })],
    });
    const portsOf = (service: K8sObject) => (service.spec as { ports: { name: string }[] }).ports.map((port) => port.name).sort();
    const exposed = findObject(objects, 'Service', 'latchkey-gateway-public');
    expect(exposed.spec).toMatchObject({ type: 'LoadBalancer', loadBalancerSourceRanges: ['203.0.113.0/24'] });
    expect(portsOf(exposed)).toEqual(['http']);
    expect(exposed.metadata.annotations).toEqual({ 'service.beta.kubernetes.io/aws-load-balancer-scheme': 'internal' });
    const internal = findObject(objects, 'Service', 'latchkey-gateway');
    expect(internal.spec).toMatchObject({ type: 'ClusterIP' });
    expect(portsOf(internal)).toEqual(['grpc', 'http', 'metrics']);
    expect(internal.metadata.annotations).toBeUndefined();
    // Every LoadBalancer or NodePort Service of the release exposes HTTP alone.
    for (const service of objects.filter((object) => object.kind === 'Service' && (object.spec as { type: string }).type !== 'ClusterIP')) expect(portsOf(service)).toEqual(['http']);
    expect(findObject(objects, 'Service', 'latchkey-identity').spec).toMatchObject({ type: 'ClusterIP' });
    expectValid([exposed, internal]);
    expectRejected({ set: ['units.gateway.service.type=Public'] }, /type/);
    expectRejected({ set: ['units.identity.service.type=LoadBalancer'] }, /only a unit with an HTTP port may have a public Service/);
  });

  test('an OpenShift Route and a Gateway API HTTPRoute send traffic to the gateway’s HTTP port', () => {
    const objects = renderChart({
      values: [writeValuesFile({ route: { enabled: true, host: 'accounts.apps.example.com' }, httpRoute: { enabled: true, parentRefs: [{ name: 'public', namespace: 'gateway-system', sectionName: 'https' }], hostnames: ['accounts.example.com'] } })],
    });
    const service = findObject(objects, 'Service', 'latchkey-gateway').spec as { ports: { name: string; port: number }[] };
    const route = findObject(objects, 'Route', 'latchkey-gateway');
    expect(route).toMatchObject({ apiVersion: 'route.openshift.io/v1' });
    expect(route.spec).toEqual({
      host: 'accounts.apps.example.com',
      to: { kind: 'Service', name: 'latchkey-gateway', weight: 100 },
      port: { targetPort: 'http' },
      tls: { termination: 'edge', insecureEdgeTerminationPolicy: 'Redirect' },
      wildcardPolicy: 'None',
    });
    const httpRoute = findObject(objects, 'HTTPRoute', 'latchkey-gateway');
    expect(httpRoute).toMatchObject({ apiVersion: 'gateway.networking.k8s.io/v1' });
    expect(httpRoute.spec).toEqual({
      parentRefs: [{ name: 'public', namespace: 'gateway-system', sectionName: 'https' }],
      hostnames: ['accounts.example.com'],
      rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/' } }], backendRefs: [{ name: 'latchkey-gateway', port: service.ports.find((port) => port.name === 'http')!.port }] }],
    });
    expectRejected({ values: [writeValuesFile({ httpRoute: { enabled: true } })] }, /parentRefs/);
  });

  test('extraObjects are installed with the release, strings rendered as templates', () => {
    const objects = renderChart({
      values: [
        writeValuesFile({
          extraObjects: [
            { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'latchkey-extra' }, data: { release: '{{ .Release.Name }}' } },
            'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ include "latchkey.fullname" . }}-templated\n',
          ],
        }),
      ],
    });
    expect((findObject(objects, 'ConfigMap', 'latchkey-extra').data as Record<string, string>).release).toBe('latchkey');
    findObject(objects, 'ConfigMap', 'latchkey-templated');
    expectRejected({ values: [writeValuesFile({ extraObjects: [{ kind: 'ConfigMap' }] })] }, /extraObjects/);
  });
});

describe('autoscalers own the replica count', () => {
  test('a Deployment scaled by an HPA or by KEDA has no replicas, so an upgrade does not reset what they chose', () => {
    const objects = renderChart({
      values: [productionValues],
      set: ['units.jobs.keda.enabled=true', 'units.jobs.autoscaling.enabled=false', 'units.totp.autoscaling.enabled=false'],
    });
    const replicasOf = (unit: string) => (findObject(objects, 'Deployment', `latchkey-${unit}`).spec as { replicas?: number }).replicas;
    expect(replicasOf('jobs')).toBeUndefined();
    expect(replicasOf('gateway')).toBeUndefined();
    expect(replicasOf('totp')).toBe(2);
    expect(objects.some((object) => object.kind === 'HorizontalPodAutoscaler' && object.metadata.name === 'latchkey-jobs')).toBe(false);
  });
});

describe('a CA rotation with cert-manager', () => {
  test('mtls.trustBundle makes every unit trust a ConfigMap’s bundle (trust-manager’s), which Reloader watches too', () => {
    const objects = renderChart({ values: [productionValues], set: ['mtls.trustBundle.configMapName=latchkey-trust', 'mtls.trustBundle.key=bundle.pem', 'secrets.reloader=true'] });
    for (const object of objects.filter((candidate) => candidate.kind === 'Deployment')) {
      const pod = podTemplate(object).spec;
      const container = pod.containers[0]!;
      expect(pod.volumes?.find((volume) => volume.name === 'trust-bundle')).toEqual({ name: 'trust-bundle', configMap: { name: 'latchkey-trust', items: [{ key: 'bundle.pem', path: 'bundle.pem' }] } });
      expect(container.volumeMounts).toContainEqual({ name: 'trust-bundle', mountPath: '/etc/latchkey/trust', readOnly: true });
      expect(object.metadata.annotations?.['configmap.reloader.stakater.com/reload']).toBe('latchkey-trust');
    }
    const configMap = findObject(objects, 'ConfigMap', 'latchkey-posts').data as Record<string, string>;
    expect(configMap.GRPC_TLS_CA_FILE).toBe('/etc/latchkey/trust/bundle.pem');
    const testPod = findObject(objects, 'Pod', 'latchkey-connection-test').spec as { containers: { env: { name: string; value: string }[] }[] };
    expect(testPod.containers[0]!.env).toContainEqual({ name: 'GRPC_TLS_CA_FILE', value: '/etc/latchkey/trust/bundle.pem' });
    expectValid(objects.filter((object) => object.kind === 'Deployment' || object.kind === 'Pod'));
  });
});

describe('Reloader', () => {
  test('rolls a unit when one of its mTLS Secrets changes: its certificate, the platform clients’ CA, latchkey-admin’s', () => {
    const objects = renderChart({ values: [productionValues], set: ['secrets.reloader=true'] });
    const reloadOf = (unit: string) => findObject(objects, 'Deployment', `latchkey-${unit}`).metadata.annotations?.['secret.reloader.stakater.com/reload']?.split(',');
    expect(reloadOf('identity')).toEqual(['latchkey-admin-cli-mtls', 'latchkey-env', 'latchkey-identity-mtls', 'latchkey-nats-users', 'latchkey-platform-ca']);
    expect(reloadOf('gateway')).toEqual(['latchkey-env', 'latchkey-gateway-mtls', 'latchkey-platform-ca']);
    expect(reloadOf('posts')).toEqual(['latchkey-env', 'latchkey-nats-users', 'latchkey-posts-mtls']);
  });
});

describe('monitoring options', () => {
  test('the ServiceMonitor takes honorLabels and relabelings, and the PrometheusRule groups of your own', () => {
    const relabel = { sourceLabels: ['__meta_kubernetes_pod_node_name'], targetLabel: 'node' };
    const drop = { sourceLabels: ['__name__'], regex: 'nodejs_gc_.*', action: 'drop' };
    const ownGroup = { name: 'acme', rules: [{ alert: 'AcmeSlowSignIns', expr: 'histogram_quantile(0.9, sum by (le) (rate(http_request_duration_seconds_bucket{route="/v0/auth/login"}[5m]))) > 2', for: '10m' }] };
    const objects = renderChart({
      values: [
        writeValuesFile({
          metrics: {
            serviceMonitor: { enabled: true, honorLabels: true, relabelings: [relabel], metricRelabelings: [drop] },
            prometheusRule: { enabled: true, extraGroups: [ownGroup] },
          },
        }),
      ],
    });
    const monitor = findObject(objects, 'ServiceMonitor', 'latchkey-gateway');
    expect((monitor.spec as { endpoints: Record<string, unknown>[] }).endpoints[0]).toMatchObject({ honorLabels: true, relabelings: [relabel], metricRelabelings: [drop] });
    const rule = findObject(objects, 'PrometheusRule', 'latchkey');
    expect((rule.spec as { groups: { name: string }[] }).groups.map((group) => group.name)).toEqual(['latchkey', 'acme']);
    expectValid([monitor, rule]);
  });
});

describe('Reloader and the extension points', () => {
  test('watches the Secrets and ConfigMaps that extraEnv, extraEnvFrom and extraVolumes name, projected ones too, for that unit only', () => {
    const objects = renderChart({
      values: [
        productionValues,
        writeValuesFile({
          secrets: { reloader: true },
          units: {
            posts: {
              extraEnv: [{ name: 'OPENSEARCH_CA_FILE', value: '/etc/os/ca.crt' }, { name: 'VENDOR_TOKEN', valueFrom: { secretKeyRef: { name: 'vendor-token', key: 'token' } } }],
              extraEnvFrom: [{ configMapRef: { name: 'posts-tuning' } }],
              extraVolumes: [
                { name: 'os-ca', secret: { secretName: 'opensearch-ca' } },
                { name: 'bundle', projected: { sources: [{ configMap: { name: 'corporate-ca' } }, { secret: { name: 'client-cert' } }] } },
              ],
              extraVolumeMounts: [{ name: 'os-ca', mountPath: '/etc/os' }],
            },
          },
        }),
      ],
    });
    const annotations = (unit: string) => findObject(objects, 'Deployment', `latchkey-${unit}`).metadata.annotations ?? {};
    expect(annotations('posts')['secret.reloader.stakater.com/reload']?.split(',')).toEqual(expect.arrayContaining(['vendor-token', 'opensearch-ca', 'client-cert', 'latchkey-env']));
    expect(annotations('posts')['configmap.reloader.stakater.com/reload']?.split(',')).toEqual(['corporate-ca', 'posts-tuning']);
    expect(annotations('identity')['secret.reloader.stakater.com/reload']).not.toContain('vendor-token');
    expect(annotations('identity')['configmap.reloader.stakater.com/reload']).toBeUndefined();
  });
});

describe('the units’ CA (mtls.certManager.ca)', () => {
  test('is made by the chart in production: long-lived, its key kept at renewal, renewed before any unit certificate could outlive it', () => {
    const objects = renderChart({ values: [productionValues] });
    const ca = findObject(objects, 'Certificate', 'latchkey-ca');
    expectValid([ca, findObject(objects, 'Issuer', 'latchkey-ca'), findObject(objects, 'Issuer', 'latchkey-selfsigned')]);
    expect(ca.spec).toMatchObject({ isCA: true, secretName: 'latchkey-ca', duration: '87600h', renewBefore: '8760h', privateKey: { rotationPolicy: 'Never' }, issuerRef: { name: 'latchkey-selfsigned' } });
    expect(findObject(objects, 'Issuer', 'latchkey-ca').spec).toEqual({ ca: { secretName: 'latchkey-ca' } });
    // Each unit's certificate comes from it, and lives shorter than the CA's renewal margin.
    const hours = (duration: string) => Number(/^(\d+)h$/.exec(duration)![1]);
    for (const certificate of objects.filter((object) => object.kind === 'Certificate' && componentOf(object) !== 'ca' && componentOf(object) !== 'admin-cli')) {
      const spec = certificate.spec as { issuerRef: { name: string }; duration: string };
      expect(spec.issuerRef.name).toBe('latchkey-ca');
      expect(hours(spec.duration)).toBeLessThan(hours((ca.spec as { renewBefore: string }).renewBefore));
    }
  });

  test('refuses a renewal margin shorter than a unit certificate’s life, and an issuerRef that is not the CA it makes', () => {
    expectRejected({ values: [productionValues], set: ['mtls.certManager.ca.renewBefore=720h'] }, /renewBefore \(720h\) must be longer than mtls.certManager.duration \(2160h\)/);
    expectRejected({ values: [productionValues], set: ['mtls.certManager.issuerRef.name=other-ca'] }, /issuerRef.name must be latchkey-ca/);
  });
});
