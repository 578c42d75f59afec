/**
 * The URLs of a connection on the gateway (docs/api.md, "Enterprise SSO"),
 * made of SSO_PUBLIC_URL. The SP's entity id is its metadata URL, as Okta,
 * Entra ID and Google Workspace suggest: unique per connection, and
 * resolvable to the metadata an administrator needs.
 */
export interface ServiceProviderUrls {
  readonly entityId: string;
  readonly acsUrl: string;
  readonly metadataUrl: string;
  /** The OpenID Connect redirect URI. */
  readonly redirectUri: string;
}

export function serviceProviderUrls(publicUrl: string, connectionId: string): ServiceProviderUrls {
  const base = publicUrl.replace(/\/+$/, '');
  const metadataUrl = `${base}/v0/sso/saml/${connectionId}/metadata`;
  return {
    entityId: metadataUrl,
    acsUrl: `${base}/v0/sso/saml/${connectionId}/acs`,
    metadataUrl,
    redirectUri: `${base}/v0/sso/oidc/${connectionId}/callback`,
  };
}
