import type { identityV1, oauthV1, oidcV1, orgsV1, passkeysV1, postsV1, totpV1 } from '@latchkey/contracts';
import type { ServiceClient } from '@latchkey/grpc-kit';

/** The gRPC clients the gateway holds, one long-lived channel each; plugins name the ones they use. */
export type IdentityClient = ServiceClient<typeof identityV1.IdentityServiceService>;
export type OAuthClient = ServiceClient<typeof oauthV1.OAuthServiceService>;
export type TotpClient = ServiceClient<typeof totpV1.TotpServiceService>;
export type PostsClient = ServiceClient<typeof postsV1.PostsServiceService>;
export type PasskeysClient = ServiceClient<typeof passkeysV1.PasskeysServiceService>;
/** oidc.v1, served by identity: the OpenID Provider's grants, codes, tokens and registered clients. */
export type OidcClient = ServiceClient<typeof oidcV1.OidcServiceService>;
/** orgs.v1, served by identity: organisations, their members, roles and invitations. */
export type OrgsClient = ServiceClient<typeof orgsV1.OrganizationsServiceService>;
