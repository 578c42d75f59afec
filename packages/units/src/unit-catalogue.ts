/**
 * Every deployable unit, declared once. The local stack is built from this
 * list, callers are wired from it (packages/callees), and `pnpm gen`
 * (tools/unit-files) generates from it what cannot import it: the chart's
 * catalogue, the Skaffold artifacts, the Dockerfile targets, the
 * development NATS users and the README's rows of caller settings. Adding a
 * unit starts here (see "Adding a unit" in docs/operations.md).
 */

/**
 * http: serves the HTTP API (probes and metrics on the same port);
 * grpc: serves gRPC with grpc.health.v1, metrics on their own port;
 * worker: no inbound traffic, probes and metrics on the metrics port.
 */
export type UnitKind = 'http' | 'grpc' | 'worker';

/** A backing service the local stack checks before it starts a unit. */
export type BackingServiceName = 'postgres' | 'redis' | 'nats';

/**
 * A port's name in the chart (Service and NetworkPolicy port names) and its
 * range on one host. `admin` is a platform API's listener of its own
 * (admin.v1 on identity), open to the platform's clients only; it counts in
 * the gRPC range.
 */
export type PortName = 'http' | 'grpc' | 'admin' | 'metrics';

/**
 * Where each port range starts when every unit shares one host (the local
 * stack, and each process's defaults): a unit's port is its range's start
 * plus its `localOffset`. Admin ports count in the gRPC range.
 */
export const localPortBases: Readonly<Record<PortName, number>> = { http: 8_080, grpc: 50_051, admin: 50_051, metrics: 9_464 };

export interface UnitPort {
  readonly name: PortName;
  /** The variable the process reads its listening port from. */
  readonly variable: string;
  /** The port in the unit's container. */
  readonly containerPort: number;
  /**
   * Position in its name's range when every unit shares one host (the local
   * stack): gRPC from 50051, metrics from 9464. Fixed per unit, so that
   * adding a unit moves no other unit's port; a gRPC service's own
   * GRPC_PORT default is the same port, so that it runs alone as it does in
   * the stack.
   */
  readonly localOffset: number;
}

/**
 * A unit's PostgreSQL schemas. With a role per unit (docs/operations.md, "A
 * PostgreSQL role per unit") its role owns the schemas it `owns` (it
 * migrates them and writes them) and may only read those it `reads`, which
 * another unit owns; it has no right on any other schema.
 */
export interface UnitDatabase {
  readonly owns: readonly string[];
  readonly reads: readonly string[];
}

/** Service (proto name) => the RPCs called, by proto name. */
export type GrpcCalls = Readonly<Record<string, readonly string[]>>;

export interface Unit {
  readonly name: string;
  readonly kind: UnitKind;
  /** The unit's folder, relative to the repository root. */
  readonly folder: string;
  readonly packageName: string;
  /** The gRPC service its readiness probe asks grpc.health.v1 about. */
  readonly grpcService?: string;
  /**
   * The gRPC services it serves other units on its gRPC port, by proto name
   * (`identity.v1.IdentityService`): its own, and any more that live in its
   * process. The platform APIs (admin.v1, sessions.v1) are not among them:
   * their callers are named in configuration.
   */
  readonly serves?: readonly string[];
  readonly ports: readonly UnitPort[];
  /**
   * What it calls over gRPC: per service (proto name), the RPCs it needs,
   * by proto name (`GetUser`). With mutual TLS a service answers an RPC only
   * to the units that list it here (PERMISSION_DENIED otherwise); a unit
   * reads the `<NAME>_GRPC_ADDRESS` of each unit it calls and gets a client
   * of each service from here (packages/callees), and only callers may
   * reach a gRPC port. test/workspace/grpc-call-sites.test.ts holds the
   * lists to the calls the code makes, no more and no fewer.
   */
  readonly calls: GrpcCalls;
  /**
   * The time budget, in milliseconds, of one piece of work the unit starts
   * itself (an HTTP request, a job delivery): every call it makes for that
   * work hands on what is left of it. It is the default of the unit's
   * GRPC_DEADLINE_MS. A unit that calls only while serving a call hands on
   * its caller's deadline, and has none.
   */
  readonly deadlineMs?: number;
  /** Whether `node dist/main.js migrate` must run before it serves. */
  readonly migrates: boolean;
  readonly backingServices: readonly BackingServiceName[];
  /** Its PostgreSQL schemas, when `postgres` is among its backing services. */
  readonly database?: UnitDatabase;
  /**
   * The installation-wide settings it reads (the chart's `config` and
   * `secrets`); its own settings with defaults stay in its config schema.
   */
  readonly settings: readonly string[];
  /**
   * The secrets among `settings` it cannot start without: a missing key
   * stops its pod. The other secrets it reads are optional (the process
   * default applies).
   */
  readonly requiredSecrets: readonly string[];
  /** Executables of its folder that its image puts on the PATH, for `kubectl exec`. */
  readonly commands?: readonly string[];
  /**
   * The durable JetStream consumers it pulls from, by job name (the
   * consumer is `<prefix>_<name>`), the stream each reads, and whether it
   * runs only with the OpenID Provider on: what the chart's KEDA
   * ScaledObject scales the unit on.
   */
  readonly consumers?: readonly UnitConsumer[];
}

export interface UnitConsumer {
  readonly name: string;
  readonly stream: 'jobs' | 'events';
  readonly onlyWithOidc?: boolean;
}

/** What every process reads (packages/config's processVariables). */
const processSettings = ['NODE_ENV', 'LOG_LEVEL', 'OTEL_EXPORTER_OTLP_ENDPOINT'] as const;
const objectStoreSettings = [
  'S3_ENDPOINT',
  'S3_REGION',
  'S3_BUCKET',
  'S3_FORCE_PATH_STYLE',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
] as const;
/** A unit's PostgreSQL (packages/config's databaseVariables): the pool's URL, and one of sessions for LISTEN and migrations. */
const databaseSettings = ['DATABASE_URL', 'DATABASE_SESSION_URL'] as const;
/** A unit's Redis in any REDIS_MODE (packages/config's redisVariables). */
const redisSettings = [
  'REDIS_URL',
  'REDIS_MODE',
  'REDIS_SENTINELS',
  'REDIS_SENTINEL_MASTER',
  'REDIS_CLUSTER_NODES',
  'REDIS_USERNAME',
  'REDIS_TLS',
  'REDIS_PASSWORD',
  'REDIS_SENTINEL_PASSWORD',
] as const;
/** A unit's NATS (packages/config's natsVariables). */
const natsSettings = ['NATS_URL', 'NATS_STREAM_REPLICAS', 'NATS_CREDS_FILE', 'NATS_NKEY_SEED_FILE', 'NATS_TLS_CA_FILE'] as const;
/** Where post search lives (packages/search-engine): posts queries it, the jobs worker keeps its index. */
const searchEngineSettings = ['SEARCH_ENGINE', 'OPENSEARCH_URL', 'OPENSEARCH_INDEX', 'OPENSEARCH_USERNAME', 'OPENSEARCH_PASSWORD'] as const;

/**
 * What a unit that holds credentials of its own (passkeys, provider
 * connections, TOTP) calls on identity's credential ledger
 * (packages/credential-ledger): reserve what it is about to store or
 * delete, settle the accounts it changed, and find the reservations left
 * unsettled.
 */
const credentialOwnerCalls = ['ReserveCredential', 'ReserveCredentialRemoval', 'SettleCredentials', 'ListUnsettledCredentials'] as const;

function grpcPorts(localOffset: number): readonly UnitPort[] {
  return [
    { name: 'grpc', variable: 'GRPC_PORT', containerPort: 50_051, localOffset },
    { name: 'metrics', variable: 'METRICS_PORT', containerPort: 9_464, localOffset },
  ];
}

/**
 * Every unit, gRPC services first, in the order their migrations run; kept
 * as written (`as const`), so that the types below know each unit's calls.
 */
const catalogue = [
  {
    name: 'identity',
    kind: 'grpc',
    folder: 'services/identity',
    packageName: '@latchkey/identity',
    grpcService: 'identity.v1.IdentityService',
    // oidc.v1: the OpenID Provider's durable state, kept with the accounts its tokens are revoked with; orgs.v1:
    // organisations, kept with the accounts they are made of (docs/decisions/0003-organisations-in-identity.md);
    // scim.v1: provisioning of those accounts and memberships by an organisation's identity provider; webhooks.v1:
    // what the jobs worker delivers to organisations' webhook endpoints, and the delivery log.
    serves: ['identity.v1.IdentityService', 'oidc.v1.OidcService', 'orgs.v1.OrganizationsService', 'scim.v1.ScimService', 'webhooks.v1.WebhookDeliveryService'],
    // admin.v1 apart from identity.v1: its callers are people and their tools, with certificates of another CA.
    ports: [...grpcPorts(0), { name: 'admin', variable: 'ADMIN_GRPC_PORT', containerPort: 50_052, localOffset: 10 }],
    calls: {},
    migrates: true,
    // Redis: the session store, where disabling an account ends its sessions at once.
    backingServices: ['postgres', 'redis', 'nats'],
    database: { owns: ['identity'], reads: [] },
    settings: [
      ...processSettings,
      'NATS_SUBJECT_PREFIX',
      'REDIS_KEY_PREFIX',
      ...redisSettings,
      'AUTH_EMAIL_VERIFICATION_TOKEN_EXPIRE_TIME',
      'AUTH_PASSWORD_RESET_TOKEN_EXPIRE_TIME',
      'AUTH_EMAIL_CHANGE_TOKEN_EXPIRE_TIME',
      // Reserved: no OpenID client registered through admin.v1 may have it as its id.
      'AUTH_JWT_AUDIENCE',
      // Webhook endpoints (docs/decisions/0006-webhooks.md): the key their secrets are sealed to, and the address guard.
      'WEBHOOK_SEALING_PUBLIC_KEY',
      'WEBHOOK_ALLOW_PRIVATE_TARGETS',
      ...databaseSettings,
      ...natsSettings,
    ],
    requiredSecrets: ['DATABASE_URL', 'REDIS_URL', 'NATS_URL'],
    // latchkey-admin (docs/integration.md, "The latchkey-admin command").
    commands: ['bin/latchkey-admin'],
  },
  {
    name: 'oauth',
    kind: 'grpc',
    folder: 'services/oauth',
    packageName: '@latchkey/oauth',
    grpcService: 'oauth.v1.OAuthService',
    // Enterprise SSO's protocol and connections (docs/decisions/0004-enterprise-sso.md).
    serves: ['oauth.v1.OAuthService', 'sso.v1.SsoService'],
    ports: grpcPorts(1),
    calls: {
      // Sign-up and sign-in by a provider's account, and its connections in the credential ledger; enterprise SSO's
      // home-realm discovery, the account and membership of an SSO sign-in, and a deleted connection's ledger rows.
      'identity.v1.IdentityService': [
        'GetUserByEmail',
        'CreateVerifiedUser',
        'GetUser',
        'PrepareProviderLink',
        ...credentialOwnerCalls,
        'FindSsoOrganization',
        'ProvisionSsoMember',
        'DropSsoConnection',
      ],
      // Whether the actor may manage an organisation's SSO connections (sso:manage).
      'orgs.v1.OrganizationsService': ['GetMembership'],
    },
    migrates: true,
    backingServices: ['postgres', 'redis', 'nats'],
    database: { owns: ['oauth'], reads: [] },
    settings: [
      ...processSettings,
      'REDIS_KEY_PREFIX',
      'NATS_SUBJECT_PREFIX',
      'OAUTH_PENDING_SIGNUP_TTL_MINUTES',
      ...['GOOGLE', 'GITHUB'].flatMap((provider) => [
        `${provider}_CLIENT_ID`,
        `${provider}_CLIENT_SECRET`,
        `${provider}_REDIRECT_URI`,
        `${provider}_AUTHORIZATION_URL`,
        `${provider}_TOKEN_URL`,
      ]),
      'GOOGLE_ISSUER',
      'GOOGLE_USERINFO_URL',
      'GOOGLE_JWKS_URL',
      'GITHUB_API_URL',
      // Enterprise SSO (docs/sso.md): off unless both the public URL and the key are set.
      'SSO_PUBLIC_URL',
      'SSO_ENCRYPTION_KEY',
      'SSO_PREVIOUS_ENCRYPTION_KEYS',
      ...databaseSettings,
      ...redisSettings,
      ...natsSettings,
    ],
    requiredSecrets: ['DATABASE_URL', 'REDIS_URL', 'NATS_URL'],
  },
  {
    name: 'totp',
    kind: 'grpc',
    folder: 'services/totp',
    packageName: '@latchkey/totp',
    grpcService: 'totp.v1.TotpService',
    serves: ['totp.v1.TotpService'],
    ports: grpcPorts(2),
    // The credential ledger, which tells sign-ins of accounts without TOTP that they need not ask totp.
    calls: { 'identity.v1.IdentityService': [...credentialOwnerCalls] },
    migrates: true,
    backingServices: ['postgres', 'redis', 'nats'],
    database: { owns: ['totp'], reads: [] },
    settings: [
      ...processSettings,
      'REDIS_KEY_PREFIX',
      'NATS_SUBJECT_PREFIX',
      'TOTP_ISSUER',
      'TOTP_TEMP_TOKEN_TTL_SECONDS',
      ...databaseSettings,
      ...redisSettings,
      ...natsSettings,
      'TOTP_ENCRYPTION_KEY',
      'TOTP_PREVIOUS_ENCRYPTION_KEYS',
    ],
    requiredSecrets: ['DATABASE_URL', 'REDIS_URL', 'NATS_URL', 'TOTP_ENCRYPTION_KEY'],
  },
  {
    name: 'posts',
    kind: 'grpc',
    folder: 'services/posts',
    packageName: '@latchkey/posts',
    grpcService: 'posts.v1.PostsService',
    serves: ['posts.v1.PostsService'],
    ports: grpcPorts(3),
    calls: {},
    migrates: true,
    backingServices: ['postgres', 'redis', 'nats'],
    // Search: the index the jobs worker keeps in PostgreSQL, which SearchPosts reads (SEARCH_ENGINE=postgres).
    database: { owns: ['posts'], reads: ['search'] },
    settings: [
      ...processSettings,
      'NATS_SUBJECT_PREFIX',
      'REDIS_KEY_PREFIX',
      ...objectStoreSettings,
      ...searchEngineSettings,
      'POSTS_MAX_CONTENT_BYTES',
      ...databaseSettings,
      'DATABASE_READ_URL',
      ...redisSettings,
      ...natsSettings,
    ],
    requiredSecrets: ['DATABASE_URL', 'REDIS_URL', 'NATS_URL'],
  },
  {
    name: 'passkeys',
    kind: 'grpc',
    folder: 'services/passkeys',
    packageName: '@latchkey/passkeys',
    grpcService: 'passkeys.v1.PasskeysService',
    serves: ['passkeys.v1.PasskeysService'],
    ports: grpcPorts(5),
    // The account (its email) and the credential ledger, which keeps a passkey from being the last way in removed.
    calls: { 'identity.v1.IdentityService': ['GetUser', ...credentialOwnerCalls] },
    migrates: true,
    backingServices: ['postgres', 'redis', 'nats'],
    database: { owns: ['passkeys'], reads: [] },
    settings: [
      ...processSettings,
      'REDIS_KEY_PREFIX',
      'NATS_SUBJECT_PREFIX',
      'WEBAUTHN_RP_ID',
      'WEBAUTHN_RP_NAME',
      'WEBAUTHN_ORIGINS',
      ...databaseSettings,
      ...redisSettings,
      ...natsSettings,
    ],
    requiredSecrets: ['DATABASE_URL', 'REDIS_URL', 'NATS_URL'],
  },
  {
    name: 'jobs',
    kind: 'worker',
    folder: 'services/jobs',
    packageName: '@latchkey/jobs',
    ports: [{ name: 'metrics', variable: 'METRICS_PORT', containerPort: 9_464, localOffset: 10 }],
    calls: {
      // Whether a deleted account is gone, whether a reset being cleaned up happened, and the purge of accounts never verified.
      'identity.v1.IdentityService': ['GetUser', 'GetPasswordReset', 'PurgeUnverifiedUsers'],
      // The OpenID clients of ended sessions, for their back-channel logouts.
      'oidc.v1.OidcService': ['EndSessions'],
      // The account cleanup; the methods a password reset takes back; a post's version before its content goes.
      'oauth.v1.OAuthService': ['RemoveRecentConnections', 'DeleteUserData'],
      'totp.v1.TotpService': ['DeleteUserData'],
      'posts.v1.PostsService': ['GetPost', 'DeleteUserPosts'],
      'passkeys.v1.PasskeysService': ['RemoveRecentPasskeys', 'DeleteUserData'],
      // A deleted organisation's SSO connections (org.deleted).
      'sso.v1.SsoService': ['DeleteOrganizationConnections'],
      // Each attempt of a webhook message: what to send, then how it went.
      'webhooks.v1.WebhookDeliveryService': ['GetDelivery', 'RecordAttempt'],
    },
    // One job delivery, retried as a whole when it runs out.
    deadlineMs: 10_000,
    // One per job kind of services/jobs/src/worker.ts; the back-channel logouts and the events that cause them with the OpenID Provider on;
    // the org.deleted events whose organisations' SSO connections go; the messages to organisations' webhook endpoints.
    consumers: [
      { name: 'mail', stream: 'jobs' },
      { name: 'search_index', stream: 'jobs' },
      { name: 'content_delete', stream: 'jobs' },
      { name: 'account_cleanup', stream: 'jobs' },
      { name: 'session_revocation', stream: 'jobs' },
      { name: 'password_reset', stream: 'jobs' },
      { name: 'backchannel_logout', stream: 'jobs', onlyWithOidc: true },
      { name: 'oidc_session_ending', stream: 'events', onlyWithOidc: true },
      { name: 'sso_cleanup', stream: 'events' },
      { name: 'webhook_delivery', stream: 'jobs' },
    ],
    migrates: true,
    // Redis: the sessions that credential changes and account deletions end.
    backingServices: ['postgres', 'redis', 'nats'],
    // Search: the index it keeps (SEARCH_ENGINE=postgres), which it alone writes.
    database: { owns: ['jobs', 'search'], reads: [] },
    settings: [
      ...processSettings,
      'NATS_SUBJECT_PREFIX',
      'REDIS_KEY_PREFIX',
      'MAIL_FROM',
      'PUBLIC_APP_URL',
      ...objectStoreSettings,
      ...searchEngineSettings,
      ...databaseSettings,
      ...redisSettings,
      ...natsSettings,
      'SMTP_URL',
      // The OpenID Provider's logout tokens (docs/oidc.md, "Logout").
      'AUTH_JWT_SIGNING_KEYS',
      // Webhook deliveries (docs/webhooks.md): the key that opens endpoints' secrets, and the address guard.
      'WEBHOOK_SEALING_PRIVATE_KEY',
      'WEBHOOK_ALLOW_PRIVATE_TARGETS',
    ],
    requiredSecrets: ['DATABASE_URL', 'REDIS_URL', 'NATS_URL', 'SMTP_URL'],
  },
  {
    name: 'gateway',
    kind: 'http',
    folder: 'gateway',
    packageName: '@latchkey/gateway',
    ports: [
      { name: 'http', variable: 'GATEWAY_PORT', containerPort: 8_080, localOffset: 0 },
      // sessions.v1, for the services beside Latchkey: none of the units calls it.
      { name: 'grpc', variable: 'GRPC_PORT', containerPort: 50_051, localOffset: 4 },
      { name: 'metrics', variable: 'METRICS_PORT', containerPort: 9_464, localOffset: 11 },
    ],
    // The HTTP API's routes, each asking the unit that owns the data; never what only a unit's own work needs
    // (the credential ledger, the account cleanup).
    calls: {
      'identity.v1.IdentityService': [
        'RegisterUser',
        'AuthenticatePassword',
        'GetUser',
        'VerifyEmail',
        'SendVerificationEmail',
        'RequestPasswordReset',
        'ResetPassword',
        'ChangePassword',
        'RequestEmailChange',
        'CancelEmailChange',
        'RecordSessionsEnded',
        'CheckPassword',
        'DeleteUser',
        'ConfirmEmailChange',
      ],
      // The OpenID Provider's protocol runs here: its grants, codes and tokens are written through oidc.v1.
      'oidc.v1.OidcService': [
        'SaveArtifact',
        'FindArtifact',
        'ConsumeArtifact',
        'IssueArtifacts',
        'DestroyArtifact',
        'RevokeGrantTokens',
        'FindUserGrant',
        'ListUserGrants',
        'RevokeUserGrants',
        'GetClient',
        'ApproveDeviceCode',
        'DenyDeviceCode',
      ],
      // The organisation routes (identity decides who may do what) and the organisation in tokens.
      'orgs.v1.OrganizationsService': [
        'CreateOrganization',
        'GetOrganization',
        'ListOrganizations',
        'UpdateOrganization',
        'DeleteOrganization',
        'CreateRole',
        'ListRoles',
        'GetRole',
        'UpdateRole',
        'DeleteRole',
        'ListMembers',
        'ChangeMemberRole',
        'RemoveMember',
        'CreateInvitation',
        'ListInvitations',
        'RevokeInvitation',
        'LookupInvitation',
        'AcceptInvitation',
        'GetMembership',
        'ListMemberships',
        'AddDomain',
        'VerifyDomain',
        'ListDomains',
        'GetDomain',
        'RemoveDomain',
        'ListAuditLog',
        'ExportAuditLog',
        'CreateWebhook',
        'ListWebhooks',
        'GetWebhook',
        'UpdateWebhook',
        'DeleteWebhook',
        'RotateWebhookSecret',
        'ListWebhookDeliveries',
        'RetryWebhookDelivery',
        'SendTestWebhook',
      ],
      // SCIM 2.0 (/scim/v2) and its token and group-role routes (docs/scim.md).
      'scim.v1.ScimService': [
        'CreateToken',
        'ListTokens',
        'RevokeToken',
        'MapGroupRole',
        'ListGroupRoles',
        'CreateUser',
        'GetUser',
        'ListUsers',
        'ReplaceUser',
        'PatchUser',
        'DeleteUser',
        'CreateGroup',
        'GetGroup',
        'ListGroups',
        'PatchGroup',
        'DeleteGroup',
      ],
      'sso.v1.SsoService': [
        'CreateConnection',
        'ListConnections',
        'GetConnection',
        'UpdateConnection',
        'DeleteConnection',
        'GetServiceProviderMetadata',
        'StartSignIn',
        'DiscoverSignIn',
        'CompleteSaml',
        'CompleteOidc',
      ],
      'oauth.v1.OAuthService': [
        'ListProviders',
        'CreateAuthorization',
        'CompleteLogin',
        'CompleteSignup',
        'LinkProvider',
        'ConfirmIdentity',
        'ListConnections',
        'UnlinkProvider',
        'RemoveRecentConnections',
      ],
      'totp.v1.TotpService': [
        'BeginSetup',
        'Enable',
        'GetStatus',
        'Disable',
        'RegenerateBackupCodes',
        'BeginLogin',
        'VerifyLoginChallenge',
        'ConfirmSecondFactor',
      ],
      'posts.v1.PostsService': ['CreatePost', 'GetPost', 'UpdatePost', 'DeletePost', 'ListPosts', 'SearchPosts', 'ListActionLogs'],
      'passkeys.v1.PasskeysService': [
        'BeginRegistration',
        'FinishRegistration',
        'ListPasskeys',
        'RenamePasskey',
        'DeletePasskey',
        'BeginAuthentication',
        'FinishAuthentication',
        'RemoveRecentPasskeys',
      ],
    },
    // One HTTP request, answered 503 when it runs out.
    deadlineMs: 5_000,
    migrates: false,
    backingServices: ['redis'],
    settings: [
      ...processSettings,
      'PUBLIC_APP_URL',
      'ALLOWED_ORIGINS',
      'COOKIE_SECURE',
      'TRUSTED_PROXIES',
      'AUTH_JWT_AUDIENCE',
      'AUTH_JWT_ISSUER',
      'REDIS_KEY_PREFIX',
      'AUTH_SESSION_MAX_LIFETIME_HOURS',
      'AUTH_SESSION_SLIDING_TTL_HOURS',
      'AUTH_SESSION_REFRESH_THRESHOLD',
      'POSTS_MAX_CONTENT_BYTES',
      ...redisSettings,
      'AUTH_JWT_SIGNING_KEYS',
      'OIDC_CLIENT_SECRETS',
    ],
    requiredSecrets: ['REDIS_URL', 'AUTH_JWT_SIGNING_KEYS'],
  },
] as const satisfies readonly Unit[];

export const units: readonly Unit[] = catalogue;

type CatalogueEntry = (typeof catalogue)[number];

/** A unit's name, as the catalogue spells it. */
export type UnitName = CatalogueEntry['name'];

type EntryOf<Name extends UnitName> = Extract<CatalogueEntry, { readonly name: Name }>;

/** The gRPC services unit `Name` calls, by proto name: the keys of its `calls`. */
export type ServiceCalledBy<Name extends UnitName> = keyof EntryOf<Name>['calls'] & string;

/** The unit that serves gRPC service `Service` (`oidc.v1.OidcService`: `'identity'`). */
export type UnitServing<Service extends string> =
  CatalogueEntry extends infer Entry
    ? Entry extends { readonly name: infer Name; readonly serves: readonly (infer Served)[] }
      ? Service extends Served
        ? Name
        : never
      : never
    : never;

/** The units `Name` calls over gRPC. */
export type CalleeOf<Name extends UnitName> = UnitServing<ServiceCalledBy<Name>>;

/** Whether unit `Name` starts work of its own with a time budget (`deadlineMs`). */
export type HasDeadline<Name extends UnitName> = EntryOf<Name> extends { readonly deadlineMs: number } ? true : false;

export function unitNamed(name: string): Unit {
  const unit = units.find((candidate) => candidate.name === name);
  if (!unit) throw new Error(`no unit ${name} (known: ${units.map((known) => known.name).join(', ')})`);
  return unit;
}

/** The unit of `catalogue` that serves gRPC service `service` (`oidc.v1.OidcService`: identity). */
export function unitServing(service: string, catalogue: readonly Unit[] = units): Unit {
  const unit = catalogue.find((candidate) => candidate.serves?.includes(service));
  if (!unit) throw new Error(`no unit serves ${service}`);
  return unit;
}

/** The units `unit` calls over gRPC, in catalogue order. */
export function calleesOf(unit: Unit, catalogue: readonly Unit[] = units): string[] {
  const called = new Set(Object.keys(unit.calls).map((service) => unitServing(service, catalogue).name));
  return catalogue.filter((candidate) => called.has(candidate.name)).map((candidate) => candidate.name);
}

/** The units that call `name` over gRPC, in catalogue order. */
export function callersOf(name: string, catalogue: readonly Unit[] = units): string[] {
  return catalogue.filter((unit) => calleesOf(unit, catalogue).includes(name)).map((unit) => unit.name);
}

/**
 * Who may call each RPC of gRPC service `service`: RPC name => the units
 * that list it in their `calls`, in catalogue order. An RPC no unit calls
 * is absent, and so answers no unit.
 */
export function methodCallersOf(service: string, catalogue: readonly Unit[] = units): Record<string, string[]> {
  unitServing(service, catalogue);
  const callers: Record<string, string[]> = {};
  for (const unit of catalogue) {
    for (const method of unit.calls[service] ?? []) (callers[method] ??= []).push(unit.name);
  }
  return callers;
}

/** The variable under which callers find a gRPC unit: IDENTITY_GRPC_ADDRESS. */
export function addressVariableOf<Name extends string>(name: Name): `${Uppercase<Name>}_GRPC_ADDRESS` {
  return `${name.toUpperCase() as Uppercase<Name>}_GRPC_ADDRESS`;
}

/** The port `port` of `unit` when every unit shares one host (identity's gRPC port: 50051). */
export function localPortOf(unit: Unit, port: PortName): number {
  const found = unit.ports.find((candidate) => candidate.name === port);
  if (!found) throw new Error(`unit ${unit.name} has no ${port} port`);
  return localPortBases[port] + found.localOffset;
}

/** What follows `node dist/main.js` to start the long-running process. */
export function serveArgsOf(unit: Unit): readonly string[] {
  return unit.kind === 'http' ? [] : ['serve'];
}
