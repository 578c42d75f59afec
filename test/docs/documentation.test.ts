import { readFileSync } from 'node:fs';
import path from 'node:path';
import { errorCatalogue } from '@latchkey/errors';
import { configSchema as gatewayConfig } from '../../gateway/src/config';
import { configSchema as identityConfig } from '../../services/identity/src/config';
import { configSchema as jobsConfig } from '../../services/jobs/src/config';
import { configSchema as postsConfig } from '../../services/posts/src/config';
import { configSchema as totpConfig } from '../../services/totp/src/config';
import { configSchema as oauthConfig } from '../../services/oauth/src/config';

const root = path.resolve(__dirname, '../..');
const read = (file: string): string => readFileSync(path.join(root, file), 'utf8');

describe('documentation', () => {
  it('lists every error code of the catalogue, with its status, in docs/api.md', () => {
    const api = read('docs/api.md');
    for (const [code, { httpStatus }] of Object.entries(errorCatalogue)) {
      expect(api).toMatch(new RegExp(`\\| \`${code}\` \\| ${httpStatus} \\|`));
    }
  });

  it.each([
    ['gateway', gatewayConfig],
    ['identity', identityConfig],
    ['jobs', jobsConfig],
    ['posts', postsConfig],
    ['totp', totpConfig],
    ['oauth', oauthConfig],
  ])('describes every variable %s reads in the README', (_unit, schema) => {
    const readme = read('README.md');
    for (const variable of Object.keys(schema.shape)) expect(readme).toContain(`\`${variable}\``);
  });
});
