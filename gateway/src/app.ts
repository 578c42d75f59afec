import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { AppError } from '@latchkey/errors';
import { isDependencyOutage } from '@latchkey/grpc-kit';
import type { GatewayDeps } from './gateway-deps';
import { registerHttpMetrics } from './http/http-metrics';
import { trackRouteMethods } from './http/method-not-allowed';
import { isForeignOrigin } from './http/origin-policy';
import { sendProblem, toAppError } from './http/problem-details';
import { decorateRequestContext, releaseRequestContext } from './http/request-context';
import { requestIdOf } from './http/request-id';
import { forbidSniffing, forbidStoring, forbidStoringPrivateRoutes } from './http/response-headers';
import { accountRoutes } from './accounts/account-routes';
import { credentialRoutes } from './accounts/credential-routes';
import { answerClientError } from './http/client-errors';
import { operationsRoutes } from './http/operations-routes';
import { drainUnreadBody, refusesUnreadBody } from './http/unread-body';
import { postRoutes } from './posts/post-routes';
import { totpRoutes } from './totp/totp-routes';
import { passkeyRoutes } from './passkeys/passkey-routes';
import { oauthRoutes } from './oauth/oauth-routes';
import { sessionRoutes } from './sessions/session-routes';
import { tokenRoutes } from './tokens/token-routes';
import { oidcRoutes } from './oidc/oidc-routes';
import { activeOrganizationRoutes } from './orgs/active-organization-routes';
import { domainRoutes } from './orgs/domain-routes';
import { scimTokenRoutes } from './orgs/scim-token-routes';
import { scimRoutes } from './scim/scim-routes';
import { webhookRoutes } from './orgs/webhook-routes';
import { membershipRoutes } from './orgs/membership-routes';
import { auditLogRoutes } from './orgs/audit-log-routes';
import { organizationRoutes } from './orgs/organization-routes';
import { isProviderPath, mountProvider } from './oidc/provider-mount';
import { registerWebApp, sendAppPage, wantsAppPage, WEB_APP_DIR } from './http/web-app';
import { isSsoAcsPath, ssoRoutes } from './sso/sso-routes';

/** Default body limit (docs/api.md, "Paths and bodies"); post routes raise their own. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/** The gateway's HTTP surface, ready to listen or to `inject` in tests. */
export async function buildApp(deps: GatewayDeps): Promise<FastifyInstance> {
  // Fastify's instance type follows its logger's; typing it as Fastify's base logger keeps plugins assignable.
  const logger: FastifyBaseLogger = deps.logger;
  const app = Fastify({
    loggerInstance: logger,
    // The onResponse hook below logs each request by its route pattern, never its URL, which can carry tokens.
    logController: new LogController({
      disableRequestLogging: true,
      // The same key as every other unit's logs, so that one request can be followed across them.
      requestIdLogLabel: 'request_id',
    }),
    genReqId: requestIdOf,
    trustProxy: deps.config.TRUSTED_PROXIES.length > 0 ? [...deps.config.TRUSTED_PROXIES] : false,
    bodyLimit: BODY_LIMIT_BYTES,
    return503OnClosing: true,
    routerOptions: { maxParamLength: 256 },
    // What Node's parser refuses (a head over 16 KiB, not HTTP) never becomes a request.
    clientErrorHandler: answerClientError,
    // A bad percent-encoding or an overlong path parameter is found by the router, before any hook.
    frameworkErrors: (error, request, reply) => {
      void reply.header('x-request-id', request.id);
      forbidSniffing(reply);
      forbidStoring(reply);
      void sendProblem(reply, toAppError(error, request));
    },
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  // Response schemas document the API; the end-to-end tests hold the answers to them.
  app.setSerializerCompiler(({ httpStatus }) =>
    httpStatus === '202' || httpStatus === '204' ? () => '' : (data) => JSON.stringify(data),
  );
  // JSON is the only body type; anything else is a 415 (docs/api.md, "Paths and bodies").
  app.removeContentTypeParser('text/plain');
  await app.register(cookie);

  decorateRequestContext(app, deps.config.GRPC_DEADLINE_MS);
  app.addHook('onRequest', async (request, reply) => {
    request.receivedAt = Date.now();
    void reply.header('x-request-id', request.id);
    forbidSniffing(reply);
    // The provider's endpoints take cross-origin calls (a browser application's token requests) and guard their own forms;
    // the SSO ACS takes the IdP's cross-site form post, bound to the browser by its own cookie (docs/sso.md).
    const exempt = (deps.openIdProvider && isProviderPath(request.url)) || isSsoAcsPath(request.url);
    if (isForeignOrigin(request.method, request.headers.origin, deps.allowedOrigins) && !exempt) {
      throw new AppError('auth:origin_forbidden');
    }
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    // 202 and 204 carry no body, so they must not claim a JSON one.
    if (payload === '' && (reply.statusCode === 202 || reply.statusCode === 204)) reply.removeHeader('content-type');
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    releaseRequestContext(request);
    request.log.info(
      { method: request.method, route: request.routeOptions.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request completed',
    );
  });
  registerHttpMetrics(app, deps.registry);

  app.setErrorHandler(async (error, request, reply) => {
    if (refusesUnreadBody(error as FastifyError)) await drainUnreadBody(request.raw);
    if (isDependencyOutage(error)) {
      request.log.warn({ err: error }, 'dependency unavailable');
      return sendProblem(reply, new AppError('service:unavailable'));
    }
    const appError = toAppError(error as FastifyError, request);
    if (appError.code === 'internal:error' || appError.code === 'service:unavailable') {
      request.log.warn({ err: error, code: appError.code }, 'request failed');
    }
    return sendProblem(reply, appError);
  });
  const webApp = deps.config.WEB_APP_ENABLED && (await registerWebApp(app));
  if (deps.config.WEB_APP_ENABLED && !webApp) deps.logger.warn({ directory: WEB_APP_DIR }, 'web app not built; `/` answers 404');
  app.setNotFoundHandler(async (request, reply) => {
    if (webApp && wantsAppPage(request)) return sendAppPage(reply);
    forbidStoring(reply);
    return sendProblem(reply, new AppError('route:not_found'));
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Latchkey HTTP API',
        version: '0',
        description: 'Accounts, sessions and posts. Errors are RFC 9457 problem details with a `code`.',
      },
      components: { securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: deps.cookie.name } } },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  app.get('/v0/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  forbidStoringPrivateRoutes(app);
  const addMethodFallbacks = trackRouteMethods(app);
  const { identity, oauth, totp, passkeys, posts, orgs, sessions, limits, organizationLimits } = deps;
  const sessionAccess = { sessions, cookie: deps.cookie, reauthMaxAgeMs: deps.config.AUTH_REAUTH_MAX_AGE_SECONDS * 1000 };
  await app.register(accountRoutes({ ...sessionAccess, identity, totp, passkeys, posts, limits }));
  await app.register(credentialRoutes({ ...sessionAccess, identity, oauth, totp, passkeys, limits }));
  await app.register(sessionRoutes({ ...sessionAccess, identity, totp, passkeys, limits }));
  await app.register(totpRoutes({ ...sessionAccess, identity, totp, passkeys, limits }));
  await app.register(oauthRoutes({ ...sessionAccess, identity, oauth, totp, passkeys, limits }));
  await app.register(passkeyRoutes({ ...sessionAccess, identity, totp, passkeys, limits }));
  await app.register(
    postRoutes({
      ...sessionAccess,
      identity,
      posts,
      usage: deps.usage,
      newestPosts: deps.newestPosts,
      maxContentBytes: deps.config.POSTS_MAX_CONTENT_BYTES,
    }),
  );
  await app.register(tokenRoutes({ ...sessionAccess, tokens: deps.tokens, orgs }));
  await app.register(organizationRoutes({ ...sessionAccess, identity, orgs, organizationLimits }));
  await app.register(membershipRoutes({ ...sessionAccess, orgs, organizationLimits, limits }));
  await app.register(domainRoutes({ ...sessionAccess, orgs, organizationLimits }));
  await app.register(scimTokenRoutes({ ...sessionAccess, scim: deps.scim }));
  await app.register(scimRoutes({ scim: deps.scim, organizationLimits, publicAppUrl: deps.config.PUBLIC_APP_URL }));
  await app.register(webhookRoutes({ ...sessionAccess, orgs }));
  await app.register(auditLogRoutes({ ...sessionAccess, orgs, callBudgetMs: deps.config.GRPC_DEADLINE_MS }));
  await app.register(activeOrganizationRoutes({ ...sessionAccess, orgs }));
  await app.register(ssoRoutes({ ...sessionAccess, sso: deps.sso, identity, totp, limits, publicAppUrl: deps.config.PUBLIC_APP_URL }));
  if (deps.openIdProvider) {
    const openId = await deps.openIdProvider();
    mountProvider(app, openId);
    await app.register(oidcRoutes({ ...sessionAccess, openId, oidc: deps.oidc, orgs: deps.orgs, limits, publicAppUrl: new URL(deps.config.PUBLIC_APP_URL).origin }));
  }
  await app.register(operationsRoutes({ ready: deps.ready }));
  addMethodFallbacks();
  return app;
}
