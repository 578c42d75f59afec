import {
  clientEntriesSchema,
  clientSecretMatches,
  generateClientSecret,
  hashClientSecret,
  providerMetadataOf,
  reservedClientIdProblem,
  withClientSecrets,
} from './client-entries';

const web = { client_id: 'web', client_name: 'Web', redirect_uris: ['https://app.example.com/callback'] };

describe('OIDC_CLIENTS', () => {
  it('reads entries with the defaults of docs/oidc.md, "Clients"', () => {
    const [entry] = clientEntriesSchema.parse(JSON.stringify([web]));
    expect(entry).toMatchObject({
      client_id: 'web',
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'RS256',
      first_party: false,
      require_mfa: false,
    });
  });

  it.each([
    ['an implicit grant', { ...web, grant_types: ['implicit'] }, /grant_types/],
    ['a token response type', { ...web, response_types: ['token'] }, /response_types/],
    ['a code flow without a redirect URI', { client_id: 'x' }, /redirect_uris/],
    ['private_key_jwt without keys', { ...web, token_endpoint_auth_method: 'private_key_jwt' }, /jwks/],
    ['a secret on a public client', { ...web, token_endpoint_auth_method: 'none', client_secret: 'x'.repeat(32) }, /client_secret/],
    ['an HMAC ID token', { ...web, id_token_signed_response_alg: 'HS256' }, /id_token_signed_response_alg/],
  ])('refuses %s', (_case, entry, message) => {
    const result = clientEntriesSchema.safeParse(JSON.stringify([entry]));
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')).toMatch(message);
  });

  it('refuses two clients with one id', () => {
    expect(clientEntriesSchema.safeParse(JSON.stringify([web, web])).success).toBe(false);
  });
});

describe('client secrets', () => {
  it('takes a secret-based client’s secret from OIDC_CLIENT_SECRETS, and names what is missing or left over', () => {
    const entries = clientEntriesSchema.parse(JSON.stringify([web, { ...web, client_id: 'spa', token_endpoint_auth_method: 'none' }]));
    expect(withClientSecrets(entries, { web: 's'.repeat(32) })).toEqual([expect.objectContaining({ client_id: 'web', client_secret: 's'.repeat(32) }), entries[1]]);
    expect(withClientSecrets(entries, {})).toEqual(['client web uses client_secret_basic but has no secret']);
    expect(withClientSecrets(entries, { web: 's'.repeat(32), spa: 't'.repeat(32) })).toEqual(['OIDC_CLIENT_SECRETS names spa, which is no client with a secret']);
  });

  it('keeps only a hash, and compares a presented secret with it', () => {
    const secret = generateClientSecret();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const kept = hashClientSecret(secret);
    expect(kept).not.toContain(secret);
    expect(clientSecretMatches(kept, secret)).toBe(true);
    expect(clientSecretMatches(kept, `${secret}x`)).toBe(false);
    const metadata = providerMetadataOf(clientEntriesSchema.parse(JSON.stringify([{ ...web, client_secret: secret }]))[0]!, kept);
    expect(metadata).toMatchObject({ client_secret: kept, response_types: ['code'], require_auth_time: true });
    expect(JSON.stringify(metadata)).not.toContain(secret);
  });
});

describe('reservedClientIdProblem', () => {
  it('refuses the service tokens’ audience as a client id, and only it', () => {
    expect(reservedClientIdProblem('latchkey', 'latchkey')).toBe('cannot be "latchkey": it is AUTH_JWT_AUDIENCE, the audience of service tokens');
    expect(reservedClientIdProblem('latchkey-web', 'latchkey')).toBeUndefined();
    expect(reservedClientIdProblem('Latchkey', 'latchkey')).toBeUndefined();
  });
});
