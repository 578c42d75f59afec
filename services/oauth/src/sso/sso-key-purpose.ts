/** What SSO_ENCRYPTION_KEY seals; part of every stored key id (packages/secret-box), so it never changes. */
export const SSO_KEY_PURPOSE = 'sso';

/** The authenticated data of a connection's secret: sealed for one connection and one use, it opens for no other. */
export function connectionSecretContext(connectionId: string, use: 'oidc-client-secret' | 'saml-sp-key'): string {
  return `latchkey/sso/${use}/v1:${connectionId}`;
}
