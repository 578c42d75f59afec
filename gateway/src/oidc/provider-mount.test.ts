import { isProviderPath } from './provider-mount';

describe('the provider’s paths', () => {
  it.each([
    ['/.well-known/openid-configuration', true],
    ['/oidc/auth?client_id=x', true],
    ['/oidc/token', true],
    ['/oidc/jwks', true],
    ['/oidc/auth/abc123', true],
    // The web app's pages and the API stay the gateway's.
    ['/oidc/interaction/abc123', false],
    ['/device', false],
    // The provider's own device pages are not served: the web app's /device takes user codes.
    ['/device/abc_123', false],
    ['/device?user_code=BCDF', false],
    ['/.well-known/jwks.json', false],
    ['/v0/oidc/grants', false],
    ['/account', false],
  ])('%s is the provider’s: %s', (path, expected) => {
    expect(isProviderPath(path)).toBe(expected);
  });
});
