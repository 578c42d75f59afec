import { AppError } from '@latchkey/errors';
import { requireReturnPath } from './return-path';

describe('requireReturnPath', () => {
  it('keeps a path of the web app, with its query, and an empty one', () => {
    for (const path of ['', '/', '/account', '/oidc/interaction/Ab_1-x', '/orgs?next=%2Fposts&x=1']) expect(requireReturnPath(path)).toBe(path);
  });

  it('refuses anything a browser could read as another site', () => {
    for (const path of ['https://evil.test/', '//evil.test', '/\\evil.test', '/a\\b', 'evil.test', ' /account', '/a b', '/a\r\nSet-Cookie: x', `/${'a'.repeat(512)}`]) {
      expect(() => requireReturnPath(path)).toThrow(AppError);
    }
  });
});
