// Generated from proto/ by `pnpm gen` (tools/codegen/generate.mjs). Do not edit.
import * as adminV1 from './gen/admin/v1/admin';
import * as eventsV1 from './gen/events/v1/events';
import * as identityV1 from './gen/identity/v1/identity';
import * as oauthV1 from './gen/oauth/v1/oauth';
import * as oidcV1 from './gen/oidc/v1/oidc';
import * as orgsV1 from './gen/orgs/v1/orgs';
import * as passkeysV1 from './gen/passkeys/v1/passkeys';
import * as postsV1 from './gen/posts/v1/posts';
import * as scimV1 from './gen/scim/v1/scim';
import * as sessionsV1 from './gen/sessions/v1/sessions';
import * as ssoV1 from './gen/sso/v1/sso';
import * as totpV1 from './gen/totp/v1/totp';
import * as webhooksV1 from './gen/webhooks/v1/webhooks';

/** Generated gRPC contracts, one namespace per proto package. */
export { adminV1, eventsV1, identityV1, oauthV1, oidcV1, orgsV1, passkeysV1, postsV1, scimV1, sessionsV1, ssoV1, totpV1, webhooksV1 };

/** Every gRPC service of proto/, by its full name: how the units catalogue (packages/units) names what a unit serves and calls. */
export const serviceDefinitions = {
  'admin.v1.AdminService': adminV1.AdminServiceService,
  'identity.v1.IdentityService': identityV1.IdentityServiceService,
  'oauth.v1.OAuthService': oauthV1.OAuthServiceService,
  'oidc.v1.OidcService': oidcV1.OidcServiceService,
  'orgs.v1.OrganizationsService': orgsV1.OrganizationsServiceService,
  'orgs.v1.OrganizationAccessService': orgsV1.OrganizationAccessServiceService,
  'passkeys.v1.PasskeysService': passkeysV1.PasskeysServiceService,
  'posts.v1.PostsService': postsV1.PostsServiceService,
  'scim.v1.ScimService': scimV1.ScimServiceService,
  'sessions.v1.SessionsService': sessionsV1.SessionsServiceService,
  'sso.v1.SsoService': ssoV1.SsoServiceService,
  'totp.v1.TotpService': totpV1.TotpServiceService,
  'webhooks.v1.WebhookDeliveryService': webhooksV1.WebhookDeliveryServiceService,
} as const;

export type ServiceName = keyof typeof serviceDefinitions;
