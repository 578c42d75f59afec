// docs/organisations.md shows product teams how to check org_permissions
// in their own services. Its TypeScript examples are code people copy: each
// must compile against the packages it imports, and the permission check
// must decide as identity does, or a team's service would let through what
// Latchkey refuses (or the reverse).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { runInNewContext } from 'node:vm';
import ts from 'typescript';
import { holds } from '../../services/identity/src/orgs/permissions';

const root = path.resolve(__dirname, '../..');
const guide = readFileSync(path.join(root, 'docs/organisations.md'), 'utf8');
const examples = [...guide.matchAll(/```ts\n([\s\S]*?)```/g)].map(([, code]) => code!);

/** Where each example is compiled from: beside this test, so that it resolves the packages the test workspace has. */
const fileOf = (index: number) => path.join(__dirname, `organisations-example-${index}.ts`);

test('has the examples this test holds to account', () => {
  expect(examples.length).toBeGreaterThanOrEqual(3);
  expect(examples.some((code) => code.includes('export function holdsPermission'))).toBe(true);
});

test('compiles every TypeScript example as it is written', () => {
  const { config } = ts.readConfigFile(path.join(root, 'tsconfig.json'), (file) => ts.sys.readFile(file));
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);
  const virtual = new Map(examples.map((code, index) => [fileOf(index), code]));
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (file) => virtual.has(file) || fileExists.call(host, file);
  host.readFile = (file) => virtual.get(file) ?? readFile.call(host, file);
  host.getSourceFile = (file, language, ...rest) => {
    const code = virtual.get(file);
    return code === undefined ? getSourceFile.call(host, file, language, ...rest) : ts.createSourceFile(file, code, language, true);
  };
  const program = ts.createProgram([...virtual.keys()], options, host);
  const problems = ts
    .getPreEmitDiagnostics(program)
    .filter((diagnostic) => diagnostic.file !== undefined && virtual.has(diagnostic.file.fileName))
    .map((diagnostic) => `${path.basename(diagnostic.file!.fileName)}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
  expect(problems).toEqual([]);
});

test('decides as identity does: the organisation, the owner, the permission, its resource’s wildcard', () => {
  const code = examples.find((example) => example.includes('export function holdsPermission'))!;
  const { outputText } = ts.transpileModule(code, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } });
  const exported: { holdsPermission?: (claims: object, organizationId: string, permission: string) => boolean } = {};
  runInNewContext(outputText, { exports: exported });
  const holdsPermission = exported.holdsPermission!;

  const acme = '0190a4c2-7d1e-7000-8000-000000000001';
  const roles: [string, string[]][] = [
    ['owner', ['org:delete', 'members:manage']],
    ['admin', ['members:manage', 'members:read', 'org:update']],
    ['member', ['members:read']],
    ['billing', ['invoices:*', 'members:read']],
    ['auditor', ['invoices:re*', 'reports:export']],
  ];
  const wanted = ['invoices:read', 'invoices:refund', 'invoices:re*', 'reports:export', 'reports:delete', 'members:read', 'org:delete', 'anything:at-all'];
  for (const [role, permissions] of roles) {
    for (const permission of wanted) {
      const claims = { org_id: acme, org_role: role, org_permissions: permissions };
      expect({ role, permission, allowed: holdsPermission(claims, acme, permission) }).toEqual({ role, permission, allowed: holds(role, permissions, permission) });
      // A member of one organisation holds nothing in another, whatever the role.
      expect(holdsPermission(claims, '0190a4c2-7d1e-7000-8000-000000000002', permission)).toBe(false);
    }
  }
  expect(holdsPermission({}, acme, 'invoices:read')).toBe(false);
});
