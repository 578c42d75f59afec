import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as contracts from './index';

const root = path.resolve(__dirname, '../../..');

/** Every proto under proto/, as `proto/<package>/<version>/<file>.proto`. */
function protos(): string[] {
  const base = path.join(root, 'proto');
  return readdirSync(base, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.proto'))
    .map((file) => `proto/${file.split(path.sep).join('/')}`)
    .sort();
}

/** The namespace a proto package is exported as: `identity/v1` → `identityV1`. */
function namespaceOf(proto: string): string {
  const [, name, version] = proto.split('/');
  return `${name}${version!.toUpperCase()}`;
}

test('the README lists every proto once, with the namespace it is exported as', () => {
  const readme = readFileSync(path.join(__dirname, '../README.md'), 'utf8');
  const listed = [...readme.matchAll(/^\| `(proto\/[^`]+\.proto)` \| `(\w+)` \|/gm)].map(([, proto, namespace]) => ({ proto, namespace }));
  expect(listed.map(({ proto }) => proto).sort()).toEqual(protos());
  for (const { proto, namespace } of listed) expect(namespace).toBe(namespaceOf(proto!));
});

test('the package exports a namespace for every proto, with the messages generated from it, and the services by name', () => {
  expect(Object.keys(contracts).sort()).toEqual([...protos().map(namespaceOf), 'serviceDefinitions'].sort());
  for (const proto of protos()) {
    const text = readFileSync(path.join(root, proto), 'utf8');
    const namespace = (contracts as Record<string, Record<string, unknown>>)[namespaceOf(proto)]!;
    const messages = [...text.matchAll(/^message (\w+) \{/gm)].map(([, name]) => name!);
    expect(messages.length).toBeGreaterThan(0);
    for (const message of messages) expect({ proto, message, generated: typeof namespace[message] }).toEqual({ proto, message, generated: 'object' });
  }
});

test('serviceDefinitions holds every service of every proto, by its full name, as the definition whose methods it serves', () => {
  const declared = protos().flatMap((proto) => {
    const text = readFileSync(path.join(root, proto), 'utf8');
    const protoPackage = /^package ([\w.]+);/m.exec(text)![1]!;
    return [...text.matchAll(/^service (\w+) \{/gm)].map(([, service]) => `${protoPackage}.${service!}`);
  });
  expect(declared.length).toBeGreaterThan(0);
  expect(Object.keys(contracts.serviceDefinitions).sort()).toEqual(declared.sort());
  for (const [name, definition] of Object.entries(contracts.serviceDefinitions)) {
    const paths = Object.values(definition).map((method: { path: string }) => method.path);
    expect(paths.length).toBeGreaterThan(0);
    for (const methodPath of paths) expect(methodPath.startsWith(`/${name}/`)).toBe(true);
  }
});
