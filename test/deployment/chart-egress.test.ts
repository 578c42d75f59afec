// docs/operations.md, "Ports per topology": with the egress allow-list on,
// every unit (and its migration Job, and the `helm test` Pod) may reach
// every address its configuration names, in each topology the chart
// supports: the address's port is open in a rule of the NetworkPolicy that
// selects the pod, and DNS is reachable where the platform runs it.
import { units as catalogue } from '@latchkey/units';
import { findObject, type K8sObject, removeValuesFiles, renderChart, writeValuesFile } from './helm';
import { unknownFields, validateWithModel } from './manifest-validation';
import { type Container, containerEnvironment, mainContainer, podTemplate, selects } from './workloads';

afterAll(removeValuesFiles);

type Peer = { podSelector?: { matchLabels: Record<string, string> }; namespaceSelector?: { matchLabels: Record<string, string> } };
type Rule = { ports?: { port: number | string; protocol?: string }[]; to?: Peer[] };
type PolicySpec = { podSelector: { matchLabels: Record<string, string> }; policyTypes: string[]; egress?: Rule[] };

/** Variables that name backing-service addresses, as URLs or host:port lists. */
const addressVariables = [
  'DATABASE_URL',
  'DATABASE_SESSION_URL',
  'DATABASE_READ_URL',
  'REDIS_URL',
  'REDIS_SENTINELS',
  'REDIS_CLUSTER_NODES',
  'NATS_URL',
  'OPENSEARCH_URL',
  'S3_ENDPOINT',
  'SMTP_URL',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
];
const schemePorts: Record<string, number> = { 'https:': 443, 'http:': 80, 'postgres:': 5432, 'redis:': 6379, 'rediss:': 6379, 'nats:': 4222, 'tls:': 4222, 'smtp:': 25, 'smtps:': 465 };

/** Where a unit's configuration sends it: variable => ports. */
function addressesOf(values: Record<string, string>): { variable: string; port: number }[] {
  const found: { variable: string; port: number }[] = [];
  const mode = values.REDIS_MODE ?? 'standalone';
  for (const variable of addressVariables) {
    const value = values[variable];
    if (!value) continue;
    // REDIS_URL counts only in standalone mode, the others only in theirs; OpenSearch only when it is the engine.
    if (variable === 'REDIS_URL' && mode !== 'standalone') continue;
    if (variable === 'REDIS_SENTINELS' && mode !== 'sentinel') continue;
    if (variable === 'REDIS_CLUSTER_NODES' && mode !== 'cluster') continue;
    if (variable === 'OPENSEARCH_URL' && values.SEARCH_ENGINE !== 'opensearch') continue;
    for (const address of value.split(',')) {
      const url = address.includes('://') ? new URL(address) : new URL(`tcp://${address}`);
      found.push({ variable, port: url.port ? Number(url.port) : schemePorts[url.protocol]! });
    }
  }
  // An empty S3_ENDPOINT is AWS S3 itself.
  if ('S3_BUCKET' in values && !values.S3_ENDPOINT) found.push({ variable: 'S3_ENDPOINT', port: 443 });
  return found;
}

/** The environment a container starts with, $(VAR) expanded as the kubelet does; values of Secrets not rendered are stand-ins. */
function expandedEnvironment(objects: readonly K8sObject[], container: Container): Record<string, string> {
  const environment = containerEnvironment(objects, container);
  const values: Record<string, string> = { ...environment.values };
  for (const name of environment.external.keys()) values[name] = `stand-in-${name.toLowerCase()}`;
  for (const [name, value] of Object.entries(values)) values[name] = value.replace(/\$\(([A-Z0-9_]+)\)/g, (whole, variable: string) => values[variable] ?? whole);
  return values;
}

function policiesOf(objects: readonly K8sObject[], labels: Record<string, string>): PolicySpec[] {
  return objects.filter((object) => object.kind === 'NetworkPolicy' && selects((object.spec as PolicySpec).podSelector.matchLabels, labels)).map((object) => object.spec as PolicySpec);
}

/** Whether a rule lets TCP (or UDP) to `port` out; named ports are those of the pods it selects. */
function allows(objects: readonly K8sObject[], rules: readonly Rule[], port: number, protocol = 'TCP', to?: Record<string, string>): boolean {
  return rules.some((rule) => {
    if (to && !(rule.to ?? []).some((peer) => peer.podSelector && selects(peer.podSelector.matchLabels, to))) return false;
    return (rule.ports ?? []).some((candidate) => {
      if ((candidate.protocol ?? 'TCP') !== protocol) return false;
      if (typeof candidate.port === 'number') return candidate.port === port;
      // A named port: what the selected pods call it.
      const target = objects.find((object) => object.kind === 'Deployment' && to && selects(to, podTemplate(object).metadata.labels));
      return target !== undefined && mainContainer(target).ports?.some((named) => named.name === candidate.port && named.containerPort === port) === true;
    });
  });
}

function expectReachable(objects: readonly K8sObject[], dnsPort: number): void {
  const workloads = objects.filter((object) => object.kind === 'Deployment' || object.kind === 'Job');
  expect(workloads.length).toBeGreaterThan(catalogue.length);
  for (const workload of workloads) {
    const labels = podTemplate(workload).metadata.labels;
    const policies = policiesOf(objects, labels);
    expect(policies.length).toBeGreaterThan(0);
    for (const policy of policies) expect(policy.policyTypes).toContain('Egress');
    const rules = policies.flatMap((policy) => policy.egress ?? []);
    const name = workload.metadata.name;
    expect({ name, dns: allows(objects, rules, dnsPort, 'UDP') && allows(objects, rules, dnsPort, 'TCP') }).toEqual({ name, dns: true });
    const values = expandedEnvironment(objects, mainContainer(workload));
    // A migration talks to PostgreSQL only (its Job's policy says so); the unit's pods to everything they are configured with.
    const addresses = addressesOf(values).filter(({ variable }) => workload.kind === 'Deployment' || variable.startsWith('DATABASE_'));
    for (const { variable, port } of addresses) {
      expect({ name, variable, port, reachable: allows(objects, rules, port) }).toEqual({ name, variable, port, reachable: true });
    }
    // A migration calls no unit.
    if (workload.kind === 'Job') continue;
    for (const [variable, value] of Object.entries(values).filter(([key]) => key.endsWith('_GRPC_ADDRESS'))) {
      const callee = findObject(objects, 'Deployment', value.split(':')[0]!);
      const reachable = allows(objects, rules, Number(value.split(':')[1]), 'TCP', podTemplate(callee).metadata.labels);
      expect({ name, variable, reachable }).toEqual({ name, variable, reachable: true });
    }
  }
  // The `helm test` Pod: DNS, the gateway's /dependencies and every gRPC unit's health, through its own policy.
  const testPod = findObject(objects, 'Pod', 'latchkey-connection-test');
  const testRules = policiesOf(objects, testPod.metadata.labels ?? {}).flatMap((policy) => policy.egress ?? []);
  const testEnv = Object.fromEntries((testPod.spec as { containers: { env: { name: string; value: string }[] }[] }).containers[0]!.env.map((variable) => [variable.name, variable.value]));
  expect(allows(objects, testRules, dnsPort, 'UDP')).toBe(true);
  const dependencies = new URL(testEnv.CHECK_DEPENDENCIES_URL!);
  const targets = [`${dependencies.hostname}:${dependencies.port}`, ...testEnv.CHECK_GRPC_TARGETS!.split(',').map((target) => target.split('=')[0]!)];
  for (const target of targets) {
    const [host, port] = target.split(':') as [string, string];
    const service = findObject(objects, 'Service', host).spec as { selector: Record<string, string>; ports: { port: number; targetPort: string }[] };
    const pod = objects.find((object) => object.kind === 'Deployment' && selects(service.selector, podTemplate(object).metadata.labels))!;
    const targetPort = mainContainer(pod).ports!.find((named) => named.name === service.ports.find((candidate) => candidate.port === Number(port))!.targetPort)!.containerPort;
    expect({ target, reachable: allows(objects, testRules, targetPort, 'TCP', podTemplate(pod).metadata.labels) }).toEqual({ target, reachable: true });
  }
  const chartObjects = objects.filter((object) => object.kind !== 'ExternalSecret');
  for (const object of chartObjects) validateWithModel(object);
  expect(chartObjects.flatMap(unknownFields)).toEqual([]);
}

const egressOn = { networkPolicy: { egress: { enabled: true } }, config: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector.observability:4318' } };

const topologies: [string, Record<string, unknown>][] = [
  ['standalone', { secrets: { values: { REDIS_URL: 'redis://:pw@redis:6379/0', DATABASE_URL: 'postgres://latchkey:pw@db:5432/latchkey' } } }],
  [
    'Sentinel (Bitnami: three sentinels on 26379, the master on 6379)',
    { config: { REDIS_MODE: 'sentinel', REDIS_SENTINELS: 'redis-node-0.redis-headless:26379,redis-node-1.redis-headless:26379,redis-node-2.redis-headless:26379', REDIS_SENTINEL_MASTER: 'mymaster' }, secrets: { values: { REDIS_URL: '', REDIS_PASSWORD: 'pw' } } },
  ],
  ['Cluster (nodes on 7000-7002)', { config: { REDIS_MODE: 'cluster', REDIS_CLUSTER_NODES: 'redis-0:7000,redis-1:7001,redis-2:7002' }, secrets: { values: { REDIS_URL: '' } } }],
  [
    'PgBouncer on 6432, the primary and a replica on 5433',
    {
      secrets: {
        values: {
          DATABASE_URL: 'postgres://latchkey:pw@pgbouncer:6432/latchkey',
          DATABASE_SESSION_URL: 'postgres://latchkey:pw@db-rw:5433/latchkey',
          DATABASE_READ_URL: 'postgres://latchkey:pw@db-ro:5433/latchkey',
        },
      },
    },
  ],
  ['OpenSearch on 9200', { config: { SEARCH_ENGINE: 'opensearch', OPENSEARCH_URL: 'https://search.internal:9200' } }],
  ['managed Redis on 6380 (Azure), a NATS cluster on 4223, S3 on an endpoint of its own', { config: { S3_ENDPOINT: 'https://minio.storage:9000' }, secrets: { values: { REDIS_URL: 'rediss://:pw@cache.redis.cache.windows.net:6380/0', NATS_URL: 'nats://nats-0:4223,nats://nats-1:4223' } } }],
  ['AWS S3 itself (empty endpoint) and SMTP on 2525', { config: { S3_ENDPOINT: '' }, secrets: { values: { SMTP_URL: 'smtp://relay:2525' } } }],
  [
    'parts of CloudNativePG (a Pooler) and Bitnami Redis (connections)',
    {
      connections: {
        database: {
          enabled: true,
          host: 'latchkey-db-pooler-rw',
          port: 5432,
          sessionHost: 'latchkey-db-rw',
          sessionPort: 5433,
          readHost: 'latchkey-db-ro',
          readPort: 5433,
          database: { name: 'latchkey-db-app', key: 'dbname' },
          username: { name: 'latchkey-db-app', key: 'username' },
          password: { name: 'latchkey-db-app', key: 'password' },
          parameters: 'sslmode=require',
        },
        redis: { enabled: true, host: 'latchkey-redis-master', port: 6380, db: 0, password: { name: 'latchkey-redis', key: 'redis-password' } },
      },
      secrets: { values: { DATABASE_URL: '', REDIS_URL: '' } },
    },
  ],
];

describe.each(topologies)('with egress on, %s', (_name, topology) => {
  test('every unit, migration Job and the test Pod reaches every address its configuration names, and DNS', () => {
    for (const mode of ['hook', 'job']) {
      const objects = renderChart({ values: [writeValuesFile(egressOn), writeValuesFile(topology), writeValuesFile({ migrations: { mode, syncWave: -5 } })] });
      expectReachable(objects, 53);
    }
  });
});

describe('DNS presets', () => {
  test('openshift-dns reaches the openshift-dns namespace on 5353, where its pods listen', () => {
    const objects = renderChart({ values: [writeValuesFile(egressOn), writeValuesFile({ networkPolicy: { egress: { dns: { preset: 'openshift-dns' } } } })] });
    expectReachable(objects, 5353);
    const rule = (findObject(objects, 'NetworkPolicy', 'latchkey-gateway').spec as PolicySpec).egress![0]!;
    expect(rule.to).toEqual([{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'openshift-dns' } } }]);
    expect(allows(objects, [rule], 53, 'UDP')).toBe(false);
  });

  test('custom names its own peers and ports (NodeLocal DNSCache), and needs ports', () => {
    const local = { ipBlock: { cidr: '169.254.20.10/32' } };
    const objects = renderChart({ values: [writeValuesFile(egressOn), writeValuesFile({ networkPolicy: { egress: { dns: { preset: 'custom', to: [local], ports: [53] } } } })] });
    expect((findObject(objects, 'NetworkPolicy', 'latchkey-posts').spec as PolicySpec).egress![0]).toEqual({
      to: [local],
      ports: [
        { port: 53, protocol: 'UDP' },
        { port: 53, protocol: 'TCP' },
      ],
    });
    expect(() => renderChart({ values: [writeValuesFile(egressOn), writeValuesFile({ networkPolicy: { egress: { dns: { preset: 'custom' } } } })] })).toThrow(/ports/);
  });
});

test('a port the configuration does not name stays closed: the Sentinel port is opened only where sentinels are configured', () => {
  const objects = renderChart({ values: [writeValuesFile(egressOn)] });
  const rules = (findObject(objects, 'NetworkPolicy', 'latchkey-identity').spec as PolicySpec).egress ?? [];
  expect(allows(objects, rules, 26379)).toBe(false);
  expect(allows(objects, rules, 9200)).toBe(false);
  // Every rule names its ports: a rule without any would open them all.
  for (const rule of rules) expect(rule.ports?.length ?? 0).toBeGreaterThan(0);
});
