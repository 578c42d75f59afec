import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RedisClient } from '@latchkey/db';
import type Provider from 'oidc-provider';
import type * as OidcProvider from 'oidc-provider';
import type { Account, ClaimsParameter, Configuration, KoaContextWithOIDC } from 'oidc-provider';
import { AppError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import type { Logger } from '@latchkey/telemetry';
import { configuredClients, type GatewayConfig } from '../config';
import type { IdentityClient, OidcClient, OrgsClient } from '../service-clients';
import type { Session, SessionStore } from '../sessions/session-store';
import type { SigningKey } from '@latchkey/config';
import { ACR_MULTI_FACTOR, ACR_SINGLE_FACTOR, requiresMultiFactor } from './authentication-context';
import { clientSecretMatches } from '@latchkey/oidc-clients';
import { ClientRegistry } from './client-registry';
import { LoginFailures } from '../limits/login-failures';
import { RateLimiter } from '../limits/rate-limiter';
import { DEVICE_CODE_GUESSES, DeviceCodeGuesses } from './device-code-guesses';
import { InteractionBindings } from './interaction-binding';
import { providerCookies } from './provider-cookies';
import { providerRequestContext, rememberedLatchkeySession, requestContextOf } from './provider-context';
import { loadProviderModule } from './provider-runtime';
import { providerPages, securePages } from './provider-pages';
import { ProviderRequestLimits } from './provider-request-limits';
import { providerRoutes } from './provider-routes';
import { requestMemory, type RememberedAccount } from './request-memory';
import { issueHeld, storageFor } from './provider-storage';
import { bridgeLatchkeySessions } from './session-bridge';
import { introspectOrganization, organizationClaims, organizationOfToken } from './organization-claims';
import { ORGANIZATION_PARAMETER, organizationMemberCheck, organizationParameter, organizationScopeClaims } from './requested-organization';

/** The scopes clients may ask for, and the claims each releases. */
const scopeClaims = {
  openid: ['sub', 'auth_time', 'acr', 'amr', 'sid'],
  email: ['email', 'email_verified'],
  profile: ['preferred_username'],
  ...organizationScopeClaims,
} as const;

/** Every scope a client may ask for, and the consent page shows. */
export const providerScopes: readonly string[] = [...Object.keys(scopeClaims), 'offline_access'];

type ProviderErrors = typeof OidcProvider.errors;

const DAY_SECONDS = 24 * 60 * 60;
/** An interaction is a sign-in in progress: minutes, not an hour, of state an unauthenticated browser can make us keep. */
export const INTERACTION_TTL_SECONDS = 10 * 60;
const DEVICE_CODE_TTL_SECONDS = 10 * 60;
const AUTHORIZATION_CODE_TTL_SECONDS = 60;

export interface OpenIdProviderDeps {
  readonly config: GatewayConfig;
  readonly logger: Logger;
  readonly redis: RedisClient;
  readonly identity: IdentityClient;
  readonly oidc: OidcClient;
  /** orgs.v1: the organisation claims, read when each token is issued. */
  readonly orgs: OrgsClient;
  readonly sessions: SessionStore;
  readonly signingKeys: readonly SigningKey[];
  /** Ends a Latchkey session the way POST /v0/auth/logout does. */
  readonly signOut: (session: Session, context: RequestContext) => Promise<void>;
}

/** The running provider: its Node request handler and what the /v0/oidc routes need of it. */
export interface OpenIdProvider {
  readonly provider: Provider;
  readonly clients: ClientRegistry;
  readonly bindings: InteractionBindings;
  readonly deviceCodeGuesses: DeviceCodeGuesses;
  readonly requestLimits: ProviderRequestLimits;
  readonly issuer: string;
  handle(request: IncomingMessage, response: ServerResponse): void;
}

/** A code exchange issues a refresh token to a client allowed the grant, for a code with offline_access. */
const issuesRefreshToken: NonNullable<Configuration['issueRefreshToken']> = (_ctx, client, code) =>
  client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access');

/** The issuer: OIDC_ISSUER, else PUBLIC_APP_URL's origin. */
export function issuerOf(config: Pick<GatewayConfig, 'OIDC_ISSUER' | 'PUBLIC_APP_URL'>): string {
  return config.OIDC_ISSUER ?? new URL(config.PUBLIC_APP_URL).origin;
}

/**
 * Builds Latchkey's OpenID Provider on oidc-provider (OpenID Certified):
 * the authorization code flow with PKCE, refresh tokens rotated on every
 * use, the device flow, userinfo, introspection, revocation and
 * RP-initiated logout; its keys are AUTH_JWT_SIGNING_KEYS, its sessions the
 * Latchkey sessions, its storage identity and Redis
 * (docs/decisions/0002-openid-provider.md).
 */
export async function createOpenIdProvider(deps: OpenIdProviderDeps): Promise<OpenIdProvider> {
  const { default: ProviderClass, interactionPolicy, errors } = await loadProviderModule();
  const { config } = deps;
  const issuer = issuerOf(config);
  const publicAppUrl = new URL(config.PUBLIC_APP_URL).origin;
  const clients = new ClientRegistry(configuredClients(config), deps.oidc, deps.logger);
  const bindings = new InteractionBindings(deps.redis, config.REDIS_KEY_PREFIX, config.COOKIE_SECURE);
  const refreshTtl = config.OIDC_REFRESH_TOKEN_TTL_DAYS * DAY_SECONDS;
  const policy = interactionPolicy.base();
  const { Check } = interactionPolicy;

  // The provider's session is the browser's Latchkey session (session-bridge.ts), and an interaction's result never
  // carries a login: whoever confirms, the code goes to the account signed in where the request resumes. prompt=login
  // is therefore satisfied by a proof of that session newer than the authorization request, made since in this browser.
  const login = policy.get('login')!;
  login.checks.remove('login_prompt');
  login.checks.unshift(
    new Check('login_prompt', 'a new sign-in was requested', 'login_required', async (ctx) => {
      if (!ctx.oidc.prompts.has('login')) return Check.NO_NEED_TO_PROMPT;
      const resumed = ctx.oidc.entities.Interaction as { uid: string } | undefined;
      const binding = resumed ? await bindings.find(resumed.uid) : undefined;
      const session = rememberedLatchkeySession(ctx.req);
      return binding && session && session.authenticatedAt > binding.provenAt ? Check.NO_NEED_TO_PROMPT : Check.REQUEST_PROMPT;
    }),
  );
  // A client may require a multi-factor sign-in: `require_mfa` in its entry, or acr_values naming it.
  login.checks.add(
    new Check('mfa_required', 'multi-factor authentication is required', 'login_required', (ctx) =>
      requiresMultiFactor(ctx.oidc.client?.['require_mfa'], ctx.oidc.params?.['acr_values']) && ctx.oidc.session?.acr !== ACR_MULTI_FACTOR
        ? Check.REQUEST_PROMPT
        : Check.NO_NEED_TO_PROMPT,
    ),
  );
  // A first-party client is the installation's own application: it is never shown a consent page, not even for
  // prompt=consent (which offline_access needs); loadExistingGrant grants it what it asks for.
  for (const check of policy.get('consent')!.checks) {
    const decide = check.check;
    check.check = (ctx) => (ctx.oidc.client?.['first_party'] === true ? Check.NO_NEED_TO_PROMPT : decide(ctx));
  }
  // A request for an organisation is held to the membership once the user is known and consent is settled: a client
  // the user has not allowed hears consent_required (prompt=none) before anything of the user's memberships.
  policy.add(new interactionPolicy.Prompt({ name: 'organization', requestable: false }, organizationMemberCheck(Check, errors, deps.orgs)));

  const storage = { redis: deps.redis, prefix: config.REDIS_KEY_PREFIX, oidc: deps.oidc, clients, logger: deps.logger, issuesRefreshToken };
  const configuration: Configuration = {
    adapter: storageFor(storage),
    clients: clients.configuredMetadata() as unknown as Configuration['clients'],
    clientDefaults: {
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'RS256',
    },
    extraClientMetadata: {
      properties: ['first_party', 'require_mfa'],
      validator(_ctx, key, value) {
        if (value !== undefined && typeof value !== 'boolean') throw new Error(`${key} must be a boolean`);
      },
    },
    jwks: { keys: deps.signingKeys.map((key) => ({ ...key.privateJwk, alg: key.alg, use: 'sig' })) },
    enabledJWA: {
      // What the keys can sign (signingAlgorithms); the provider offers those of them it has a key for.
      idTokenSigningAlgValues: ['RS256', 'EdDSA', 'ES256'],
      userinfoSigningAlgValues: ['RS256', 'EdDSA', 'ES256'],
      introspectionSigningAlgValues: ['RS256', 'EdDSA', 'ES256'],
      clientAuthSigningAlgValues: ['EdDSA', 'ES256', 'RS256', 'PS256'],
      requestObjectSigningAlgValues: ['EdDSA', 'ES256', 'RS256', 'PS256'],
    },
    responseTypes: ['code'],
    pkce: { required: () => true },
    scopes: [...providerScopes],
    claims: Object.fromEntries(Object.entries(scopeClaims).map(([scope, claims]) => [scope, [...claims]])),
    // docs/oidc.md, "Organisations": the organisation a client signs the user in to.
    extraParams: { [ORGANIZATION_PARAMETER]: organizationParameter(errors) },
    // Grafana and Argo CD read email and preferred_username from the ID token, not from userinfo.
    conformIdTokenClaims: false,
    acrValues: [ACR_SINGLE_FACTOR, ACR_MULTI_FACTOR],
    cookies: providerCookies(issuer, deps.signingKeys),
    routes: providerRoutes,
    ttl: {
      AccessToken: config.OIDC_ACCESS_TOKEN_TTL_SECONDS,
      IdToken: config.OIDC_ACCESS_TOKEN_TTL_SECONDS,
      AuthorizationCode: AUTHORIZATION_CODE_TTL_SECONDS,
      DeviceCode: DEVICE_CODE_TTL_SECONDS,
      Interaction: INTERACTION_TTL_SECONDS,
      // A signed-out browser's provider session keeps only a logout confirmation's state: minutes, like an interaction.
      Session: (_ctx, session) => (session.accountId ? config.AUTH_SESSION_MAX_LIFETIME_HOURS * 3600 : INTERACTION_TTL_SECONDS),
      Grant: refreshTtl,
      // Rotation never extends a chain: its tokens share the first one's absolute lifetime.
      RefreshToken: (ctx) => ctx?.oidc.entities.RotatedRefreshToken?.remainingTTL ?? refreshTtl,
    },
    rotateRefreshToken: true,
    // oidc-provider would bind codes and access tokens without offline_access to its own session object, of which a
    // browser may hold several for one Latchkey session; identity ends them instead when the Latchkey session ends
    // (oidc.v1 EndSessions, from the session.revoked event).
    expiresWithSession: async () => false,
    // Signing out ends the codes and tokens a session got, not the user's consent; revoking a refresh token ends both.
    revokeGrantPolicy: (ctx) => ctx.oidc.route !== 'end_session_confirm' && !(ctx.oidc.route === 'revocation' && ctx.oidc.entities.AccessToken),
    issueRefreshToken: issuesRefreshToken,
    features: {
      devInteractions: { enabled: false },
      // A client learns about, and ends, its own tokens only (docs/oidc.md, "Tokens").
      introspection: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
      revocation: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
      userinfo: { enabled: true },
      // Claims asked for by name would be released under a consent given for scopes: only scopes ask for claims.
      claimsParameter: { enabled: false },
      backchannelLogout: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: (ctx, form) => providerPages.logout(ctx, form),
        postLogoutSuccessSource: providerPages.signedOut(publicAppUrl),
      },
      deviceFlow: {
        enabled: true,
        charset: 'base-20',
        mask: '****-****',
      },
    },
    interactions: {
      // The browser that asked is bound to the interaction (interaction-binding.ts). A request resumed into a new
      // interaction (a consent after a sign-in) keeps the proof time of the request as it first came.
      url: async (ctx, interaction) => {
        const secret = bindings.secretIn(ctx.get('cookie'));
        const resumed = ctx.oidc.entities.Interaction as { uid: string } | undefined;
        const earlier = resumed ? await bindings.find(resumed.uid) : undefined;
        const provenAt = earlier?.provenAt ?? rememberedLatchkeySession(ctx.req)?.authenticatedAt ?? 0;
        await bindings.bind(interaction.uid, secret, provenAt, INTERACTION_TTL_SECONDS);
        ctx.append('Set-Cookie', bindings.setCookieHeader(secret, INTERACTION_TTL_SECONDS));
        return `${publicAppUrl}/oidc/interaction/${interaction.uid}`;
      },
      policy,
    },
    renderError: providerPages.error(publicAppUrl),
    findAccount: (ctx, sub, token) => findAccount(deps, errors, ctx, sub, token),
    loadExistingGrant: (ctx) => loadExistingGrant(deps, ctx),
    // A browser application may call the token endpoint from the origin of one of its redirect URIs.
    clientBasedCORS: (_ctx, origin, client) => client.redirectUris?.some((uri) => new URL(uri).origin === origin) ?? false,
  };

  const provider = new ProviderClass(issuer, configuration);
  // The gateway sets X-Forwarded-Host and -Proto to the issuer's on every request it hands over (provider-mount.ts).
  provider.proxy = true;
  // Client secrets are kept as SHA-256 hashes (OIDC_CLIENTS hashed at start, admin.v1 stored hashed).
  (provider.Client.prototype as unknown as { compareClientSecret(this: { clientSecret?: string }, actual: string): boolean }).compareClientSecret =
    function compareClientSecret(actual) {
      return this.clientSecret !== undefined && clientSecretMatches(this.clientSecret, actual);
    };
  // The outbox and the jobs worker send every back-channel logout, for every way a session ends (docs/oidc.md, "Logout").
  (provider.Client.prototype as unknown as { backchannelLogout(): Promise<void> }).backchannelLogout = async () => {};
  bridgeLatchkeySessions(provider, config.SESSION_COOKIE_NAME, (raw, cookie) => readLatchkeySession(deps, raw, cookie));
  provider.on('server_error', (ctx, error) => {
    (requestContextOf(ctx.req)?.logger ?? deps.logger).warn({ err: error }, 'OpenID Provider request failed');
  });

  // The gateway's security headers and a content security policy on every answer: the few HTML pages the provider
  // shows run only the inline scripts and styles they declare (provider-pages.ts, and oidc-provider's own form_post).
  provider.use(async (ctx, next) => {
    securePages(ctx);
    await next();
  });

  // A token request's writes are held until its last token is saved; none may outlive the request.
  provider.use(async (ctx, next) => {
    await next();
    const memory = (ctx as KoaContextWithOIDC).oidc?.route === 'token' ? requestMemory(ctx as KoaContextWithOIDC) : undefined;
    if (memory?.source && ctx.status === 200) await issueHeld(storage, memory);
  });

  provider.use(introspectOrganization(deps.orgs));

  // A device's user opens the web app's page, whatever origin the issuer has (RFC 8628, section 3.2).
  provider.use(async (ctx, next) => {
    await next();
    const body = ctx.body as { user_code?: unknown } | undefined;
    if ((ctx as KoaContextWithOIDC).oidc?.route !== 'device_authorization' || ctx.status !== 200 || typeof body?.user_code !== 'string') return;
    const page = new URL('/device', publicAppUrl);
    ctx.body = { ...body, verification_uri: page.toString(), verification_uri_complete: `${page.toString()}?${new URLSearchParams({ user_code: body.user_code }).toString()}` };
  });

  // RP-initiated logout signs the browser out of Latchkey too; the session.revoked event then reaches every client.
  provider.use(async (ctx, next) => {
    await next();
    const { oidc } = ctx as unknown as { oidc?: { route?: string; params?: Record<string, unknown> } };
    if (oidc?.route !== 'end_session_confirm' || !oidc.params?.['logout']) return;
    const session = rememberedLatchkeySession(ctx.req);
    const context = requestContextOf(ctx.req);
    if (session && context) await deps.signOut(session, context);
    ctx.append('Set-Cookie', `${config.SESSION_COOKIE_NAME}=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax${config.COOKIE_SECURE ? '; Secure' : ''}`);
  });

  const callback = provider.callback();
  const deviceCodeGuesses = new DeviceCodeGuesses(
    new LoginFailures(deps.redis, config.REDIS_KEY_PREFIX, { ...DEVICE_CODE_GUESSES, scope: 'device-code-guesses' }),
    config.RATE_LIMIT_IPV6_PREFIX,
  );
  const requestLimits = new ProviderRequestLimits(new RateLimiter(deps.redis, config.REDIS_KEY_PREFIX), config);
  return { provider, clients, bindings, deviceCodeGuesses, requestLimits, issuer, handle: (request, response) => void callback(request, response) };
}

async function readLatchkeySession(deps: OpenIdProviderDeps, raw: IncomingMessage, cookie: string | undefined): Promise<Session | undefined> {
  return deps.sessions.authenticate(cookie, () => providerRequestContext(raw));
}

/**
 * The account a session, code or token names, with its claims; for a code
 * or token issued for an organisation, the membership read now
 * (organization-claims.ts).
 */
async function findAccount(
  deps: OpenIdProviderDeps,
  errors: ProviderErrors,
  ctx: KoaContextWithOIDC,
  sub: string,
  token: { readonly claims?: ClaimsParameter | undefined } | undefined,
): Promise<Account | undefined> {
  const account = await accountRecordOf(deps, ctx, sub);
  if (!account) return undefined;
  const organization = await organizationOfToken(deps.orgs, errors, ctx, account.userId, token);
  return {
    accountId: account.userId,
    claims: async (_use, scope) => ({
      sub: account.userId,
      email: account.email,
      email_verified: account.emailVerified,
      preferred_username: account.handle,
      ...(await organizationClaims(deps.orgs, ctx, account.userId, organization, scope)),
    }),
  };
}

async function accountRecordOf(deps: OpenIdProviderDeps, ctx: KoaContextWithOIDC, sub: string): Promise<RememberedAccount | undefined> {
  // Identity answered the account with the token or code this request presented (provider-storage.ts).
  const memory = requestMemory(ctx);
  const remembered = memory?.accounts.get(sub);
  if (remembered !== undefined) return remembered ?? undefined;
  const context = providerRequestContext(ctx.req);
  // An authorization request reads the signed-in account, then its grant for the client (loadExistingGrant): one call.
  const clientId = ctx.oidc.client?.clientId;
  if (memory && clientId && (ctx.oidc.route === 'authorization' || ctx.oidc.route === 'resume') && sub === ctx.oidc.session?.accountId) {
    const found = await deps.oidc.findUserGrant({ userId: sub, clientId, withGrantAndAccount: true }, context);
    memory.userGrants.set(clientId, found.found ? found.grantId : null);
    if (found.found) memory.grants.set(found.grantId, found.grantPayloadJson || null);
    memory.accounts.set(sub, found.account ?? null);
    return found.account;
  }
  const user = await deps.identity.getUser({ userId: sub }, context).then(
    (answer) => answer.user,
    (error: unknown) => {
      // An account that is gone (or an id that was never one) has no claims: the provider answers invalid_grant or login.
      if (error instanceof AppError && (error.code === 'auth:unauthorized' || error.code === 'validation:invalid_input')) return undefined;
      throw error;
    },
  );
  if (!user || user.disabledAt) return undefined;
  return { userId: user.id, email: user.email, emailVerified: user.emailVerifiedAt !== undefined, handle: user.handle };
}

/**
 * Consent is remembered per user and client (docs/oidc.md, "Consent"):
 * the account's grant for the client, wherever it was given. A
 * `first_party` client gets, without a page, a grant of what it asks for.
 */
async function loadExistingGrant(deps: OpenIdProviderDeps, ctx: KoaContextWithOIDC) {
  const { oidc } = ctx;
  const accountId = oidc.session?.accountId;
  const client = oidc.client;
  if (!accountId || !client) return undefined;
  const remembered = requestMemory(ctx)?.userGrants.get(client.clientId);
  const kept =
    oidc.result?.consent?.grantId ??
    (remembered !== undefined ? remembered : (await deps.oidc.findUserGrant({ userId: accountId, clientId: client.clientId, withGrantAndAccount: false }, providerRequestContext(ctx.req))).grantId);
  let grant = kept ? await oidc.provider.Grant.find(kept) : undefined;
  if (grant && (grant.accountId !== accountId || grant.clientId !== client.clientId)) grant = undefined;
  if (client['first_party'] === true) {
    grant ??= new oidc.provider.Grant({ accountId, clientId: client.clientId });
    const granted = new Set((grant.getOIDCScope() ?? '').split(' ').filter(Boolean));
    const missing = [...oidc.requestParamOIDCScopes].filter((scope) => !granted.has(scope));
    if (missing.length > 0 || grant.jti === undefined) {
      if (missing.length > 0) grant.addOIDCScope(missing.join(' '));
      await grant.save();
    }
  }
  return grant;
}
