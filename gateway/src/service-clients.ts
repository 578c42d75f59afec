import type { CalleeClients } from '@latchkey/callees';

/**
 * The gRPC clients the gateway holds: one long-lived channel per service
 * its catalogue entry calls (packages/units), named by proto package.
 * Plugins name the ones they use.
 */
export type GatewayClients = CalleeClients<'gateway'>;
export type IdentityClient = GatewayClients['identity'];
export type OAuthClient = GatewayClients['oauth'];
export type TotpClient = GatewayClients['totp'];
export type PostsClient = GatewayClients['posts'];
export type PasskeysClient = GatewayClients['passkeys'];
/** oidc.v1, served by identity: the OpenID Provider's grants, codes, tokens and registered clients. */
export type OidcClient = GatewayClients['oidc'];
/** orgs.v1, served by identity: organisations, their members, roles and invitations. */
export type OrgsClient = GatewayClients['orgs'];
/** sso.v1, served by the oauth unit: enterprise SSO's connections and sign-ins. */
export type SsoClient = GatewayClients['sso'];
/** scim.v1, served by identity: SCIM provisioning, its tokens and group roles. */
export type ScimClient = GatewayClients['scim'];
