import { status as GrpcStatus } from '@grpc/grpc-js';

interface ErrorDefinition {
  /** HTTP status the gateway answers with. */
  readonly httpStatus: number;
  /** gRPC status a service answers with; the code itself travels in metadata. */
  readonly grpcStatus: GrpcStatus;
  /** Default human-readable detail, used when the thrower gives none. */
  readonly message: string;
}

const define = (httpStatus: number, grpcStatus: GrpcStatus, message: string): ErrorDefinition => ({
  httpStatus,
  grpcStatus,
  message,
});

/**
 * Every `domain:reason` code of the HTTP contract (docs/api.md, "Error codes"), the one
 * place where a code meets its statuses. Retired codes must not be reused.
 */
export const errorCatalogue = {
  // validation
  'validation:invalid_input': define(400, GrpcStatus.INVALID_ARGUMENT, 'The request is not valid.'),
  'validation:unsupported_media_type': define(415, GrpcStatus.INVALID_ARGUMENT, 'The body must be application/json.'),
  'validation:payload_too_large': define(413, GrpcStatus.INVALID_ARGUMENT, 'The body is over the size limit.'),
  'validation:headers_too_large': define(431, GrpcStatus.INVALID_ARGUMENT, 'The request line and headers are over the size limit.'),
  // routing
  'route:not_found': define(404, GrpcStatus.NOT_FOUND, 'No such route.'),
  'route:method_not_allowed': define(405, GrpcStatus.UNIMPLEMENTED, 'This method is not allowed on this path.'),
  // authentication
  'auth:unauthorized': define(401, GrpcStatus.UNAUTHENTICATED, 'A valid session is required.'),
  'auth:invalid_credentials': define(401, GrpcStatus.UNAUTHENTICATED, 'The email or password is wrong.'),
  'auth:email_not_verified': define(403, GrpcStatus.FAILED_PRECONDITION, 'The email address is not verified yet.'),
  'auth:account_disabled': define(403, GrpcStatus.FAILED_PRECONDITION, 'This account is disabled. Contact the administrator.'),
  'auth:wrong_password': define(400, GrpcStatus.INVALID_ARGUMENT, 'The current password is wrong.'),
  'auth:password_not_set': define(
    400,
    GrpcStatus.FAILED_PRECONDITION,
    'This account has no password; use forgot-password to set one.',
  ),
  'auth:origin_forbidden': define(403, GrpcStatus.PERMISSION_DENIED, 'Requests from this origin are not allowed.'),
  'auth:reauthentication_required': define(
    403,
    GrpcStatus.PERMISSION_DENIED,
    'Prove again who you are (POST /v0/auth/reauthenticate), then repeat the request.',
  ),
  'auth:second_factor_required': define(
    400,
    GrpcStatus.FAILED_PRECONDITION,
    'This account has two-factor authentication: give the password and a code together, a code after a provider, or use a passkey.',
  ),
  'auth:token_invalid': define(400, GrpcStatus.INVALID_ARGUMENT, 'The token is unknown, used or expired.'),
  'auth:sso_required': define(
    403,
    GrpcStatus.FAILED_PRECONDITION,
    "This account's organisation requires signing in through its SSO connection.",
  ),
  // users
  'user:handle_taken': define(409, GrpcStatus.ALREADY_EXISTS, 'That handle is taken.'),
  'user:email_taken': define(409, GrpcStatus.ALREADY_EXISTS, 'That email address is taken.'),
  'user:not_found': define(404, GrpcStatus.NOT_FOUND, 'No such account.'),
  // sessions
  'session:not_found': define(404, GrpcStatus.NOT_FOUND, 'No such session.'),
  // oauth
  'oauth:provider_not_found': define(404, GrpcStatus.NOT_FOUND, 'No such provider.'),
  'oauth:state_invalid': define(400, GrpcStatus.INVALID_ARGUMENT, 'The state is unknown, used or expired.'),
  'oauth:code_invalid': define(400, GrpcStatus.INVALID_ARGUMENT, 'The provider refused the authorization code.'),
  'oauth:provider_unavailable': define(502, GrpcStatus.UNAVAILABLE, 'The provider did not answer properly.'),
  'oauth:email_not_verified': define(
    409,
    GrpcStatus.FAILED_PRECONDITION,
    'The provider does not vouch for this email address.',
  ),
  'oauth:pending_signup_invalid': define(400, GrpcStatus.INVALID_ARGUMENT, 'The pending signup is unknown or expired.'),
  'oauth:already_linked': define(409, GrpcStatus.ALREADY_EXISTS, 'That provider identity is already linked.'),
  'oauth:identity_not_linked': define(
    400,
    GrpcStatus.INVALID_ARGUMENT,
    'The provider identity that signed in is not linked to this account.',
  ),
  'oauth:connection_not_found': define(404, GrpcStatus.NOT_FOUND, 'No connection for that provider.'),
  'oauth:last_login_method': define(
    409,
    GrpcStatus.FAILED_PRECONDITION,
    'This is the last way to sign in to the account.',
  ),
  // totp
  'totp:already_enabled': define(409, GrpcStatus.ALREADY_EXISTS, 'TOTP is already enabled.'),
  'totp:not_enabled': define(400, GrpcStatus.FAILED_PRECONDITION, 'TOTP is not enabled.'),
  'totp:invalid_code': define(400, GrpcStatus.INVALID_ARGUMENT, 'The code is not valid.'),
  'totp:setup_token_invalid': define(400, GrpcStatus.INVALID_ARGUMENT, 'The setup token is unknown or expired.'),
  'totp:temp_token_invalid': define(400, GrpcStatus.INVALID_ARGUMENT, 'The temporary token is not valid.'),
  'totp:temp_token_expired': define(400, GrpcStatus.INVALID_ARGUMENT, 'The temporary token has expired.'),
  'totp:backup_code_exhausted': define(401, GrpcStatus.UNAUTHENTICATED, 'No backup codes are left.'),
  'totp:secret_generation_failed': define(500, GrpcStatus.INTERNAL, 'The TOTP secret could not be generated.'),
  'totp:qr_generation_failed': define(500, GrpcStatus.INTERNAL, 'The QR code could not be generated.'),
  // passkeys
  'passkey:challenge_invalid': define(
    400,
    GrpcStatus.INVALID_ARGUMENT,
    'The passkey challenge is unknown, used, expired or was issued to another browser.',
  ),
  'passkey:verification_failed': define(400, GrpcStatus.INVALID_ARGUMENT, 'The passkey response could not be verified.'),
  'passkey:not_found': define(404, GrpcStatus.NOT_FOUND, 'No passkey with that id.'),
  'passkey:already_registered': define(409, GrpcStatus.ALREADY_EXISTS, 'That passkey is already registered.'),
  'passkey:last_login_method': define(
    409,
    GrpcStatus.FAILED_PRECONDITION,
    'This passkey is the last way to sign in to the account.',
  ),
  // OpenID Provider (docs/oidc.md)
  // organisations (docs/organisations.md)
  'org:not_found': define(404, GrpcStatus.NOT_FOUND, 'No such organisation, or you are not a member of it.'),
  'org:forbidden': define(403, GrpcStatus.PERMISSION_DENIED, 'Your role in this organisation does not allow this.'),
  'org:slug_taken': define(409, GrpcStatus.ALREADY_EXISTS, 'Another organisation has this slug.'),
  'org:limit_reached': define(409, GrpcStatus.FAILED_PRECONDITION, 'You own as many organisations as an account may.'),
  'org:last_owner': define(409, GrpcStatus.FAILED_PRECONDITION, 'An organisation keeps at least one owner: make another member an owner first.'),
  'org:already_member': define(409, GrpcStatus.ALREADY_EXISTS, 'That person is a member already.'),
  'org:invitation_pending': define(409, GrpcStatus.ALREADY_EXISTS, 'That address has a pending invitation already.'),
  'org:invitation_invalid': define(400, GrpcStatus.FAILED_PRECONDITION, 'The invitation is unknown, used, revoked or expired.'),
  'org:invitation_email_mismatch': define(403, GrpcStatus.PERMISSION_DENIED, 'The invitation is for another email address than a verified one of this account.'),
  'org:invitation_not_found': define(404, GrpcStatus.NOT_FOUND, 'No pending invitation with that id in this organisation.'),
  'org:role_in_use': define(409, GrpcStatus.FAILED_PRECONDITION, 'Members or pending invitations hold this role.'),
  'org:role_not_found': define(404, GrpcStatus.NOT_FOUND, 'No role with that name in this organisation.'),
  'org:role_exists': define(409, GrpcStatus.ALREADY_EXISTS, 'This organisation has a role with that name already.'),
  'org:member_not_found': define(404, GrpcStatus.NOT_FOUND, 'That account is not a member of this organisation.'),
  'org:domain_not_found': define(404, GrpcStatus.NOT_FOUND, 'This organisation has not claimed that domain.'),
  'org:domain_unverified': define(
    409,
    GrpcStatus.FAILED_PRECONDITION,
    'The domain is not verified: its DNS TXT record was not found with the verification value.',
  ),
  'org:domain_taken': define(409, GrpcStatus.ALREADY_EXISTS, 'Another organisation has verified this domain.'),
  // enterprise SSO (docs/organisations.md, "Enterprise SSO")
  'sso:connection_not_found': define(404, GrpcStatus.NOT_FOUND, 'No SSO connection for that domain or organisation.'),
  'sso:response_invalid': define(400, GrpcStatus.INVALID_ARGUMENT, "The identity provider's response is not valid."),
  'sso:domain_mismatch': define(403, GrpcStatus.PERMISSION_DENIED, "The email address is not in the organisation's verified domains."),
  // SCIM 2.0 provisioning (docs/scim.md): the gateway answers them as RFC 7644 errors, scimType from the reason.
  'scim:unauthorized': define(401, GrpcStatus.UNAUTHENTICATED, 'A valid SCIM bearer token is required.'),
  'scim:not_found': define(404, GrpcStatus.NOT_FOUND, 'No such resource in this organisation.'),
  'scim:token_not_found': define(404, GrpcStatus.NOT_FOUND, 'No SCIM token with that id in this organisation.'),
  'scim:group_not_found': define(404, GrpcStatus.NOT_FOUND, 'No SCIM group with that id in this organisation.'),
  'scim:invalid_filter': define(400, GrpcStatus.INVALID_ARGUMENT, 'The filter is not valid or not supported.'),
  'scim:invalid_syntax': define(400, GrpcStatus.INVALID_ARGUMENT, 'The request body is not a valid SCIM message.'),
  'scim:invalid_path': define(400, GrpcStatus.INVALID_ARGUMENT, 'The PATCH path is not valid or not supported.'),
  'scim:invalid_value': define(400, GrpcStatus.INVALID_ARGUMENT, 'A value is missing, of the wrong type or not allowed.'),
  'scim:no_target': define(400, GrpcStatus.INVALID_ARGUMENT, 'The PATCH operation names no attribute to act on.'),
  'scim:mutability': define(400, GrpcStatus.FAILED_PRECONDITION, 'That attribute cannot be changed.'),
  'scim:uniqueness': define(409, GrpcStatus.ALREADY_EXISTS, 'A resource with that userName, externalId or displayName exists already.'),
  // webhooks (docs/decisions/0006-webhooks.md)
  'webhook:not_found': define(404, GrpcStatus.NOT_FOUND, 'No webhook endpoint with that id in this organisation.'),
  'webhook:disabled': define(409, GrpcStatus.FAILED_PRECONDITION, 'The webhook endpoint is disabled: enable it to send it messages.'),
  'oidc:interaction_not_found': define(404, GrpcStatus.NOT_FOUND, 'No sign-in request with that id, or it expired.'),
  'oidc:client_not_found': define(404, GrpcStatus.NOT_FOUND, 'No application with that client id.'),
  'oidc:client_exists': define(409, GrpcStatus.ALREADY_EXISTS, 'An application with that client id is registered already.'),
  'oidc:grant_not_found': define(404, GrpcStatus.NOT_FOUND, 'That application has no access to the account.'),
  'oidc:user_code_invalid': define(400, GrpcStatus.INVALID_ARGUMENT, 'The code is unknown, used or expired.'),
  'oidc:token_reused': define(400, GrpcStatus.FAILED_PRECONDITION, 'A used code or refresh token was presented again; the grant was revoked.'),
  // posts
  'post:not_found': define(404, GrpcStatus.NOT_FOUND, 'No post with that id.'),
  'post:forbidden': define(403, GrpcStatus.PERMISSION_DENIED, 'Only the author may change this post.'),
  // platform
  'rate_limit:exceeded': define(429, GrpcStatus.RESOURCE_EXHAUSTED, 'Too many attempts; try again later.'),
  'service:unavailable': define(503, GrpcStatus.UNAVAILABLE, 'A dependency is unavailable; nothing was changed.'),
  'internal:error': define(500, GrpcStatus.INTERNAL, 'An unexpected error occurred.'),
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorCode = keyof typeof errorCatalogue;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(errorCatalogue, value);
}

export function describeError(code: ErrorCode): ErrorDefinition {
  return errorCatalogue[code];
}
