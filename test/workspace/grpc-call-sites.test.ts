// The units catalogue's `calls` (packages/units) are what each gRPC service
// answers under mutual TLS: an RPC a unit makes but does not list is refused
// in production, and one it lists but never makes is a permission it does
// not need. So the lists are held to the code, both ways: every use of a
// generated client's method in a unit's sources, or in a workspace package
// the unit depends on, is an RPC that unit calls. The code is read by the
// TypeScript compiler, so an alias, a destructured client or a helper in a
// shared package is found as well as `identity.getUser(...)`.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { units, type Unit } from '@latchkey/units';

const root = path.resolve(__dirname, '../..');

/**
 * The platform APIs: their callers are services beside Latchkey and
 * operators' tools, named in configuration (SESSIONS_GRPC_ALLOWED_CALLERS,
 * ADMIN_GRPC_ALLOWED_CALLERS), not units.
 */
const platformApis = ['admin.v1.AdminService', 'sessions.v1.SessionsService'];

interface WorkspacePackage {
  readonly folder: string;
  readonly dependencies: readonly string[];
}

/** Every workspace package by name, with the workspace packages it depends on at run time. */
function workspacePackages(): Map<string, WorkspacePackage> {
  const folders = ['gateway', ...['packages', 'services'].flatMap((group) => readdirSync(path.join(root, group)).map((name) => `${group}/${name}`))];
  const packages = new Map<string, WorkspacePackage>();
  for (const folder of folders) {
    const manifestFile = path.join(root, folder, 'package.json');
    if (!existsSync(manifestFile)) continue;
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { name: string; dependencies?: Record<string, string> };
    packages.set(manifest.name, { folder, dependencies: Object.keys(manifest.dependencies ?? {}).filter((name) => name.startsWith('@latchkey/')) });
  }
  return packages;
}

/** The folders whose code runs in `unit`'s process: its own and those of the workspace packages it reaches. */
function foldersOf(unit: Unit, packages: ReadonlyMap<string, WorkspacePackage>): string[] {
  const reached = new Set<string>();
  const visit = (name: string): void => {
    const found = packages.get(name);
    if (!found || reached.has(found.folder)) return;
    reached.add(found.folder);
    found.dependencies.forEach(visit);
  };
  visit(unit.packageName);
  return [...reached];
}

function* sourceFiles(folder: string): Generator<string> {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(full);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')) yield full;
  }
}

/** `/identity.v1.IdentityService/GetUser` of a generated service definition's method, from its `path`. */
function pathOfMethod(declaration: ts.Declaration): string | undefined {
  if (!ts.isPropertyAssignment(declaration) || !ts.isObjectLiteralExpression(declaration.initializer)) return undefined;
  if (!declaration.getSourceFile().fileName.includes('/packages/contracts/src/gen/')) return undefined;
  const pathProperty = declaration.initializer.properties.find(
    (property): property is ts.PropertyAssignment => ts.isPropertyAssignment(property) && property.name.getText() === 'path',
  );
  const initializer = pathProperty?.initializer;
  const literal = initializer && ts.isAsExpression(initializer) ? initializer.expression : initializer;
  return literal && ts.isStringLiteral(literal) ? literal.text : undefined;
}

/** Service => RPCs: every method of a generated service definition that the files' code names. */
function rpcsNamedIn(program: ts.Program, files: ReadonlySet<string>): Map<string, Set<string>> {
  const checker = program.getTypeChecker();
  const named = new Map<string, Set<string>>();
  const record = (name: ts.Node): void => {
    for (const declaration of checker.getSymbolAtLocation(name)?.declarations ?? []) {
      const methodPath = pathOfMethod(declaration);
      if (!methodPath) continue;
      const [, service, rpc] = methodPath.split('/');
      if (!named.has(service!)) named.set(service!, new Set());
      named.get(service!)!.add(rpc!);
    }
  };
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node)) record(node.name);
    else if (ts.isElementAccessExpression(node)) record(node.argumentExpression);
    else if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) record(node.propertyName ?? node.name);
    ts.forEachChild(node, visit);
  };
  for (const sourceFile of program.getSourceFiles()) if (files.has(path.normalize(sourceFile.fileName))) visit(sourceFile);
  return named;
}

/** Every RPC of every generated service definition, by service. */
function everyRpc(program: ts.Program): Map<string, Set<string>> {
  const rpcs = new Map<string, Set<string>>();
  for (const sourceFile of program.getSourceFiles()) {
    if (!sourceFile.fileName.includes('/packages/contracts/src/gen/')) continue;
    const visit = (node: ts.Node): void => {
      const methodPath = pathOfMethod(node as ts.Declaration);
      if (methodPath) {
        const [, service, rpc] = methodPath.split('/');
        if (!rpcs.has(service!)) rpcs.set(service!, new Set());
        rpcs.get(service!)!.add(rpc!);
      }
      ts.forEachChild(node, visit);
    };
    visit(sourceFile);
  }
  return rpcs;
}

const packages = workspacePackages();
const unitFiles = new Map(units.map((unit) => [unit.name, new Set(foldersOf(unit, packages).flatMap((folder) => [...sourceFiles(path.join(root, folder, 'src'))]))]));
let program: ts.Program;

beforeAll(() => {
  const { config } = ts.readConfigFile(path.join(root, 'tsconfig.json'), (file) => ts.sys.readFile(file));
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);
  program = ts.createProgram([...new Set([...unitFiles.values()].flatMap((files) => [...files]))], options);
}, 60_000);

const sorted = (rpcs: Iterable<string>): string[] => [...rpcs].sort();

describe.each(units.map((unit) => [unit.name, unit] as const))('%s', (name, unit) => {
  test('lists exactly the RPCs its code calls, service by service', () => {
    const called = rpcsNamedIn(program, unitFiles.get(name)!);
    for (const api of platformApis) called.delete(api);
    const declared = Object.fromEntries(Object.entries(unit.calls).map(([service, rpcs]) => [service, sorted(rpcs)]));
    expect(Object.fromEntries([...called].map(([service, rpcs]) => [service, sorted(rpcs)]))).toEqual(declared);
  });
});

test('every RPC the catalogue lists is one of its service, and every service a unit serves has a generated definition', () => {
  const rpcs = everyRpc(program);
  for (const unit of units) {
    for (const service of unit.serves ?? []) expect({ service, generated: rpcs.has(service) }).toEqual({ service, generated: true });
    for (const [service, listed] of Object.entries(unit.calls)) {
      const unknown = listed.filter((rpc) => !rpcs.get(service)?.has(rpc));
      expect({ caller: unit.name, service, unknown }).toEqual({ caller: unit.name, service, unknown: [] });
    }
  }
});
