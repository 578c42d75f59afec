// The checks the chart tests rely on must be able to fail: a misspelt field
// and a wrong type are caught, a correct object passes.
import { type K8sObject } from './helm';
import { modelFor, unknownFields, validateWithModel } from './manifest-validation';

function deploymentWith(container: Record<string, unknown>, spec: Record<string, unknown> = {}): K8sObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'probe', labels: { app: 'probe' } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'probe' } },
      template: {
        metadata: { labels: { app: 'probe' } },
        spec: { containers: [{ name: 'main', image: 'example/main:1', ...container }] },
      },
      ...spec,
    },
  };
}

test('modelFor() finds the model class by apiVersion and kind', () => {
  expect(modelFor('apps/v1', 'Deployment').name).toBe('Deployment');
  expect(modelFor('networking.k8s.io/v1', 'NetworkPolicy').name).toBe('NetworkPolicy');
  expect(() => modelFor('apps/v1', 'NoSuchKind')).toThrow(/NoSuchKind/);
  expect(() => modelFor('example.com/v1', 'Widget')).toThrow(/example\.com\/v1/);
});

test('validateWithModel() accepts a well-formed Deployment', () => {
  expect(() => validateWithModel(deploymentWith({ ports: [{ name: 'http', containerPort: 8080 }] }))).not.toThrow();
});

test('validateWithModel() rejects a wrong type', () => {
  expect(() => validateWithModel(deploymentWith({}, { replicas: 'two' }))).toThrow();
  expect(() => validateWithModel(deploymentWith({ ports: [{ containerPort: '8080' }] }))).toThrow();
});

test('unknownFields() reports misspelt fields at any depth, with their path', () => {
  const object = deploymentWith(
    {
      securityContex: { runAsNonRoot: true },
      livenessProbe: { grpc: { port: 50051, servce: 'x' } },
      env: [{ name: 'A', value: '1', valeu: '2' }],
      resources: { limits: { memory: '1Gi' } },
    },
    { strategyy: {} },
  );
  expect(unknownFields(object).sort()).toEqual([
    'Deployment/probe.spec.strategyy',
    'Deployment/probe.spec.template.spec.containers[0].env[0].valeu',
    'Deployment/probe.spec.template.spec.containers[0].livenessProbe.grpc.servce',
    'Deployment/probe.spec.template.spec.containers[0].securityContex',
  ]);
});

test('unknownFields() accepts free-form maps (labels, annotations, resource quantities)', () => {
  const object = deploymentWith({ resources: { requests: { cpu: '100m', 'example.com/gpu': '1' } } });
  object.metadata.annotations = { 'any.key/at-all': 'x' };
  expect(unknownFields(object)).toEqual([]);
});
