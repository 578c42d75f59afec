// ESLint rule latchkey/unit-boundaries: a deployable unit (gateway/,
// services/<name>/) never imports another unit, and a shared package
// (packages/<name>/) never imports a unit. Units talk over gRPC and
// JetStream only, so that each deploys, scales and fails on its own; shared
// code goes into a package (see docs/architecture.md, "Units").
// CommonJS, so that eslint.config.mjs and the rule's jest test load it alike.
const { existsSync, readdirSync, readFileSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');

/** Unit folders relative to the root, with their package names. */
function readUnits() {
  const folders = [
    'gateway',
    ...readdirSync(path.join(root, 'services'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `services/${entry.name}`),
  ];
  return folders
    .filter((folder) => existsSync(path.join(root, folder, 'package.json')))
    .map((folder) => ({ folder, packageName: JSON.parse(readFileSync(path.join(root, folder, 'package.json'), 'utf8')).name }));
}

const units = readUnits();

/** The unit or package folder a repository path lies in, if any. */
function ownerOf(file) {
  const relative = path.relative(root, file).split(path.sep).join('/');
  const unit = units.find(({ folder }) => relative === folder || relative.startsWith(`${folder}/`));
  if (unit) return { kind: 'unit', folder: unit.folder };
  const shared = /^packages\/[^/]+/.exec(relative);
  if (shared) return { kind: 'package', folder: shared[0] };
  return undefined;
}

/** The unit an import specifier reaches, seen from `file`. */
function unitReached(specifier, file) {
  const byName = units.find(({ packageName }) => specifier === packageName || specifier.startsWith(`${packageName}/`));
  if (byName) return byName.folder;
  if (!specifier.startsWith('.')) return undefined;
  const target = ownerOf(path.resolve(path.dirname(file), specifier));
  return target?.kind === 'unit' ? target.folder : undefined;
}

/** @type {import('eslint').Rule.RuleModule} */
const unitBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: 'Units do not import each other, and shared packages do not import units.' },
    schema: [],
    messages: {
      unitImportsUnit: '{{from}} imports {{to}}: units talk over gRPC or JetStream; move shared code into packages/.',
      packageImportsUnit: '{{from}} imports the unit {{to}}: a shared package must not depend on a unit.',
    },
  },
  create(context) {
    const owner = ownerOf(context.filename);
    if (!owner) return {};
    const check = (node) => {
      if (!node || node.type !== 'Literal' || typeof node.value !== 'string') return;
      const reached = unitReached(node.value, context.filename);
      if (!reached || reached === owner.folder) return;
      context.report({
        node,
        messageId: owner.kind === 'unit' ? 'unitImportsUnit' : 'packageImportsUnit',
        data: { from: owner.folder, to: reached },
      });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};

module.exports = { rules: { 'unit-boundaries': unitBoundaries } };
