// Typed views of the parts of rendered workloads that the deployment tests
// look at: pod templates, containers and their environment.
import { type K8sObject, findObject } from './helm';

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    secretKeyRef?: { name: string; key: string; optional?: boolean };
    configMapKeyRef?: { name: string; key: string };
  };
}

export interface Probe {
  grpc?: { port: number; service?: string };
  httpGet?: { path: string; port: number | string };
  periodSeconds?: number;
}

export interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  runAsGroup?: number;
  privileged?: boolean;
  allowPrivilegeEscalation?: boolean;
  readOnlyRootFilesystem?: boolean;
  capabilities?: { drop?: string[]; add?: string[] };
  seccompProfile?: { type: string };
}

export interface Container {
  name: string;
  image: string;
  args?: string[];
  ports?: { name: string; containerPort: number }[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  securityContext?: SecurityContext;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}

export interface PodSpec {
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  securityContext?: SecurityContext & { fsGroup?: number };
  containers: Container[];
  volumes?: { name: string; emptyDir?: Record<string, unknown>; secret?: { secretName: string; defaultMode?: number; items?: { key: string; path: string }[] } }[];
}

export interface PodTemplate {
  metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
  spec: PodSpec;
}

export const workloadKinds = new Set(['Deployment', 'Job']);

export function podTemplate(object: K8sObject): PodTemplate {
  if (!workloadKinds.has(object.kind)) throw new Error(`${object.kind} has no pod template`);
  const spec = object.spec as { template: PodTemplate };
  return spec.template;
}

/** The one container of a unit's pod (the chart runs one per pod). */
export function mainContainer(object: K8sObject): Container {
  const containers = podTemplate(object).spec.containers;
  if (containers.length !== 1 || !containers[0]) {
    throw new Error(`${object.kind}/${object.metadata.name} has ${containers.length} containers`);
  }
  return containers[0];
}

export interface ContainerEnvironment {
  /** Every variable name the container gets. */
  names: Set<string>;
  /** Values that the rendered objects determine (ConfigMaps, chart Secrets, literals). */
  values: Record<string, string>;
  /** Variables read from a Secret that is not rendered (secrets.existingSecret). */
  external: Map<string, { secret: string; key: string; optional: boolean }>;
  /** Variables set through a ConfigMap. */
  fromConfigMaps: Set<string>;
}

function secretValue(secret: K8sObject, key: string): string | undefined {
  const data = (secret.data ?? {}) as Record<string, string>;
  const stringData = (secret.stringData ?? {}) as Record<string, string>;
  if (key in stringData) return stringData[key];
  const encoded = data[key];
  return encoded === undefined ? undefined : Buffer.from(encoded, 'base64').toString('utf8');
}

/**
 * The environment a container starts with, resolved against the rendered
 * objects. A reference to a rendered ConfigMap or Secret that lacks the key
 * is an error, unless the reference is optional (the variable is then not
 * set); a Secret that is not rendered is recorded as external.
 */
export function containerEnvironment(objects: readonly K8sObject[], container: Container): ContainerEnvironment {
  const environment: ContainerEnvironment = {
    names: new Set(),
    values: {},
    external: new Map(),
    fromConfigMaps: new Set(),
  };
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) {
      const configMap = findObject(objects, 'ConfigMap', source.configMapRef.name);
      for (const [name, value] of Object.entries((configMap.data ?? {}) as Record<string, string>)) {
        environment.names.add(name);
        environment.values[name] = value;
        environment.fromConfigMaps.add(name);
      }
    }
    if (source.secretRef) throw new Error(`${container.name} takes a whole Secret (${source.secretRef.name}) as envFrom`);
  }
  for (const variable of container.env ?? []) {
    if (variable.value !== undefined) {
      environment.names.add(variable.name);
      environment.fromConfigMaps.delete(variable.name);
      environment.values[variable.name] = variable.value;
      continue;
    }
    const secretRef = variable.valueFrom?.secretKeyRef;
    const configMapRef = variable.valueFrom?.configMapKeyRef;
    if (secretRef) {
      const secret = objects.find((object) => object.kind === 'Secret' && object.metadata.name === secretRef.name);
      if (!secret) {
        environment.names.add(variable.name);
        environment.fromConfigMaps.delete(variable.name);
        environment.external.set(variable.name, { secret: secretRef.name, key: secretRef.key, optional: secretRef.optional === true });
        continue;
      }
      const value = secretValue(secret, secretRef.key);
      if (value === undefined) {
        // The kubelet skips an optional reference to a missing key.
        if (secretRef.optional === true) continue;
        throw new Error(`Secret ${secretRef.name} has no key ${secretRef.key} (${variable.name})`);
      }
      environment.names.add(variable.name);
      environment.fromConfigMaps.delete(variable.name);
      environment.values[variable.name] = value;
    } else if (configMapRef) {
      environment.names.add(variable.name);
      const configMap = findObject(objects, 'ConfigMap', configMapRef.name);
      const value = ((configMap.data ?? {}) as Record<string, string>)[configMapRef.key];
      if (value === undefined) throw new Error(`ConfigMap ${configMapRef.name} has no key ${configMapRef.key}`);
      environment.values[variable.name] = value;
      environment.fromConfigMaps.add(variable.name);
    } else {
      throw new Error(`${container.name}: variable ${variable.name} has neither value nor a supported valueFrom`);
    }
  }
  return environment;
}

/** The unit a chart object belongs to (app.kubernetes.io/component). */
export function componentOf(object: K8sObject): string | undefined {
  return object.metadata.labels?.['app.kubernetes.io/component'];
}

/** Whether every label of a selector is on the given labels. */
export function selects(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([key, value]) => labels[key] === value);
}
