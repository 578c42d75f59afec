/** Generated gRPC contracts, one namespace per proto package. */
export * as identityV1 from './gen/identity/v1/identity';
export * as oauthV1 from './gen/oauth/v1/oauth';
export * as totpV1 from './gen/totp/v1/totp';
export * as passkeysV1 from './gen/passkeys/v1/passkeys';
export * as postsV1 from './gen/posts/v1/posts';
export * as sessionsV1 from './gen/sessions/v1/sessions';
export * as adminV1 from './gen/admin/v1/admin';
export * as eventsV1 from './gen/events/v1/events';
export * as oidcV1 from './gen/oidc/v1/oidc';
export * as orgsV1 from './gen/orgs/v1/orgs';
