import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { errorCatalogue } from '@latchkey/errors';
import { units } from '@latchkey/units';

const root = path.resolve(__dirname, '../..');
const read = (file: string): string => readFileSync(path.join(root, file), 'utf8');

describe('documentation', () => {
  it('lists every error code of the catalogue, with its status, in docs/api.md', () => {
    const api = read('docs/api.md');
    for (const [code, { httpStatus }] of Object.entries(errorCatalogue)) {
      expect(api).toMatch(new RegExp(`\\| \`${code}\` \\| ${httpStatus} \\|`));
    }
  });

  // Every unit of the catalogue, by the configSchema its src/config.ts exports.
  it.each(units.map((unit) => [unit.name, unit.folder] as const))('describes every variable %s reads in the README', (_unit, folder) => {
    const { configSchema } = jest.requireActual<{ configSchema: z.ZodObject }>(path.join(root, folder, 'src', 'config'));
    const readme = read('README.md');
    for (const variable of Object.keys(configSchema.shape)) expect({ variable, described: readme.includes(`\`${variable}\``) }).toEqual({ variable, described: true });
  });

  describe('the repository stands alone', () => {
    const tracked = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter((file) => /\.(ts|mjs|cjs|js|md|sql|ya?ml|proto|json)$/.test(file) && !file.startsWith('packages/contracts/src/gen/') && file !== 'pnpm-lock.yaml');
    const texts = tracked.map((file) => ({ file, text: read(file) }));

    it('cites no document outside it', () => {
      const outside = /\.\.\/shared|(?<![\w/])(API|ARCHITECTURE|TOOLCHAIN|STYLE)\.md|service-spec|\bspec(ification)?('s)? part\b/;
      // This file names the patterns it looks for.
      const citing = texts.filter(({ file, text }) => file !== 'test/docs/documentation.test.ts' && outside.test(text)).map(({ file }) => file);
      expect(citing).toEqual([]);
    });

    it('cites only files that exist, from the root or from the citing package', () => {
      const cited = /(?<![\w./-])((?:gateway|services|packages|tools|test|docs|proto|charts|k8s|clients|types)\/[\w./-]+\.(?:tsx?|md|mjs|ya?ml|proto|json|sql|py))/g;
      // Code names paths of its own making; a citation is in prose: a document, or a comment.
      const prose = (file: string, text: string): string =>
        file.endsWith('.md') ? text : text.split('\n').filter((line) => /^\s*(\/\/|\*|\/\*\*|#|--)/.test(line)).join('\n');
      const packageOf = (file: string): string => {
        let folder = path.dirname(file);
        while (folder !== '.' && !existsSync(path.join(root, folder, 'package.json'))) folder = path.dirname(folder);
        return folder;
      };
      const broken = texts.flatMap(({ file, text }) =>
        [...prose(file, text).matchAll(cited)]
          .map(([, target]) => target!)
          .filter((target) => !existsSync(path.join(root, target)) && !existsSync(path.join(root, packageOf(file), target)))
          .map((target) => `${file}: ${target}`),
      );
      expect(broken).toEqual([]);
    });

    it('cites only parts of docs/api.md that exist', () => {
      const parts = new Set([...read('docs/api.md').matchAll(/^## (\d+)\. /gm)].map(([, part]) => part));
      const broken = texts.flatMap(({ file, text }) =>
        [...text.matchAll(/docs\/api\.md,? parts? ((?:\d+(?:, | and |-)?)+)/g)].flatMap(([, list]) =>
          list!.split(/, | and |-/).filter((part) => part !== '' && !parts.has(part)).map((part) => `${file}: part ${part}`),
        ),
      );
      expect(parts.size).toBeGreaterThanOrEqual(7);
      expect(broken).toEqual([]);
    });

    it('cites only sections of docs/api.md that exist, by their heading', () => {
      const headings = new Set([...read('docs/api.md').matchAll(/^#{2,3} (?:\d+\. )?(.+)$/gm)].map(([, heading]) => heading));
      const broken = texts.flatMap(({ file, text }) =>
        [...text.matchAll(/docs\/api\.md`?,? "([^"]+)"/g)]
          // A citation may wrap onto the next comment line.
          .map(([, name]) => (name ?? '').replace(/\s*\n\s*(?:\*|\/\/|#|--)?\s*/g, ' '))
          .filter((name) => !headings.has(name))
          .map((name) => `${file}: "${name}"`),
      );
      expect(headings.size).toBeGreaterThan(10);
      expect(broken).toEqual([]);
    });
  });
});
