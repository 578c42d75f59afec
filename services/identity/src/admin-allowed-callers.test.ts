import { ConfigError } from '@latchkey/config';
import { loadIdentityConfig } from './config';

const required = { DATABASE_URL: 'postgres://db/x', REDIS_URL: 'redis://r', NATS_URL: 'nats://n' };

describe('ADMIN_GRPC_ALLOWED_CALLERS', () => {
  it('reads per admin.v1 RPC, or `*`, the certificate names allowed to call it', () => {
    const config = loadIdentityConfig({ ...required, ADMIN_GRPC_ALLOWED_CALLERS: '{"*": ["urn:latchkey:admin-cli"], "FindUser": ["spiffe://example.org/desk"]}' });
    expect(config.ADMIN_GRPC_ALLOWED_CALLERS).toEqual({ '*': ['urn:latchkey:admin-cli'], FindUser: ['spiffe://example.org/desk'] });
    expect(loadIdentityConfig(required).ADMIN_GRPC_ALLOWED_CALLERS).toEqual({});
  });

  it.each([
    ['not JSON', 'identity', /must be a JSON object/],
    ['a misspelt RPC, which would silently allow nobody', '{"FindUsers": ["x"]}', /must be "\*" or an admin\.v1 RPC/],
    ['a name that is not in a list', '{"*": "urn:latchkey:admin-cli"}', /ADMIN_GRPC_ALLOWED_CALLERS/],
  ])('refuses %s at start', (_case, value, message) => {
    expect(() => loadIdentityConfig({ ...required, ADMIN_GRPC_ALLOWED_CALLERS: value })).toThrow(ConfigError);
    expect(() => loadIdentityConfig({ ...required, ADMIN_GRPC_ALLOWED_CALLERS: value })).toThrow(message);
  });
});

describe('PLATFORM_TLS_CA_FILE', () => {
  it('is required with mutual TLS: admin.v1 trusts the platform clients’ CA and no other', () => {
    const tls = { GRPC_TLS_CERT_FILE: '/tls/tls.crt', GRPC_TLS_KEY_FILE: '/tls/tls.key', GRPC_TLS_CA_FILE: '/tls/ca.crt' };
    expect(() => loadIdentityConfig({ ...required, ...tls })).toThrow(/PLATFORM_TLS_CA_FILE: is required with GRPC_TLS_CERT_FILE/);
    expect(loadIdentityConfig({ ...required, ...tls, PLATFORM_TLS_CA_FILE: '/platform/ca.crt' }).PLATFORM_TLS_CA_FILE).toBe('/platform/ca.crt');
  });
});
