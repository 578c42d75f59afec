import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError, isAppError } from '@latchkey/errors';
import { ssoBrowserBinding } from '../http/browser-binding';
import { noContent, problemResponses } from '../http/problem-schema';
import type { CredentialLimits } from '../limits/credential-limits';
import type { IdentityClient, SsoClient, TotpClient } from '../service-clients';
import { requireSession, sessionOf, type SessionAccess } from '../sessions/session-auth';
import { signIn } from '../sessions/sign-in';
import { orgIdParams } from '../orgs/org-schemas';
import {
  acsBody,
  authorizationUrlSchema,
  connectionIdParams,
  connectionListSchema,
  connectionParams,
  connectionSchema,
  createConnectionBody,
  discoverSignInBody,
  discoveredSignInSchema,
  oidcCallbackQuery,
  returnPathSchema,
  startSignInBody,
  updateConnectionBody,
} from './sso-schemas';
import { connectionView, createRequestOf, updateRequestOf } from './sso-views';

export type SsoRoutesDeps = SessionAccess & {
  readonly sso: SsoClient;
  readonly identity: IdentityClient;
  readonly totp: TotpClient;
  readonly limits: CredentialLimits;
  /** PUBLIC_APP_URL: where the browser lands after a sign-in through a connection. */
  readonly publicAppUrl: string;
};

/** The ACS takes a cross-site form post from the IdP: the origin check does not apply to it (docs/sso.md). */
const ACS_PATH = /^\/v0\/sso\/saml\/[^/?#]+\/acs(?:\?|$)/;

export function isSsoAcsPath(url: string): boolean {
  return ACS_PATH.test(url);
}

/** Over the ACS's SAMLResponse limit (the oauth unit's, 256 KiB decoded) with room for base64 and the form. */
const ACS_BODY_LIMIT_BYTES = 768 * 1024;

const REPOST_SCRIPT = 'document.forms[0].submit()';
const REPOST_POLICY = `default-src 'none'; script-src 'sha256-${createHash('sha256').update(REPOST_SCRIPT).digest('base64')}'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/**
 * docs/sso.md, "The browser binding": the page that posts the IdP's response again,
 * from this origin, so that the Lax binding cookie goes with it.
 */
function sendRepostPage(reply: FastifyReply, fields: { SAMLResponse: string; RelayState?: string | undefined }): FastifyReply {
  const hidden = Object.entries({ ...fields, latchkey_repost: '1' })
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('');
  return reply
    .code(200)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', REPOST_POLICY)
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Signing in</title></head><body><form method="post">${hidden}<noscript><button type="submit">Continue</button></noscript></form><script>${REPOST_SCRIPT}</script></body></html>`,
    );
}

/**
 * Enterprise SSO (docs/api.md, "Enterprise SSO"): an organisation's
 * connections (sso:manage, checked by the oauth unit), the SAML service
 * provider's metadata and assertion consumer service, the OpenID Connect
 * callback, and the email-first sign-in. Every check of an IdP's answer is
 * the oauth unit's; the gateway binds the browser and starts the session.
 */
export function ssoRoutes(deps: SsoRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const session = requireSession(deps);
    const credentialLimit = deps.limits.perClientIp;
    const tags = ['sso'];
    const appUrl = deps.publicAppUrl.replace(/\/+$/, '');

    // The ACS's form post, in this plugin only: everywhere else JSON is the only body type.
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: ACS_BODY_LIMIT_BYTES }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    });

    /**
     * The browser lands in the web app: signed in, where the sign-in was going (the path its start gave,
     * kept by the oauth unit with the request this browser started, checked again here); at its second
     * factor, which goes there next; or at the error page with the code.
     */
    const finishSignIn = async (
      reply: FastifyReply,
      request: Parameters<typeof signIn>[1],
      work: () => Promise<{ userId: string; organizationId: string; returnTo: string }>,
    ) => {
      let outcome;
      let returnTo = '/';
      try {
        const signedIn = await work();
        if (returnPathSchema.safeParse(signedIn.returnTo).success) returnTo = signedIn.returnTo;
        const { user } = await deps.identity.getUser({ userId: signedIn.userId }, request.ctx);
        outcome = await signIn(deps, request, reply, user!, 'fed', signedIn.organizationId);
      } catch (error) {
        if (!isAppError(error)) throw error;
        return reply.redirect(`${appUrl}/sso/error?code=${encodeURIComponent(error.code)}`, 303);
      }
      // The login challenge goes in the fragment, which no server and no Referer sees.
      if ('totp_required' in outcome) {
        const next = returnTo === '/' ? '' : `?next=${encodeURIComponent(returnTo)}`;
        return reply.redirect(`${appUrl}/sso/second-factor${next}#temp_token=${encodeURIComponent(outcome.temp_token)}`, 303);
      }
      return reply.redirect(`${appUrl}${returnTo}`, 303);
    };

    app.post(
      '/v0/orgs/:org_id/sso/connections',
      {
        schema: {
          tags,
          summary: 'Add a SAML (metadata XML, or entity id, sign-in URL and certificates) or OpenID Connect connection (sso:manage).',
          params: orgIdParams,
          body: createConnectionBody,
          response: { 201: connectionSchema, ...problemResponses(400, 401, 403, 404, 503) },
        },
        onRequest: session,
      },
      async (request, reply) => {
        const { connection } = await deps.sso.createConnection(
          { actorUserId: sessionOf(request).userId, organizationId: request.params.org_id, ...createRequestOf(request.body) },
          request.ctx,
        );
        return reply.code(201).send(connectionView(connection!));
      },
    );

    app.get(
      '/v0/orgs/:org_id/sso/connections',
      {
        schema: { tags, summary: 'The organisation’s connections, oldest first (sso:manage).', params: orgIdParams, response: { 200: connectionListSchema, ...problemResponses(400, 401, 403, 404, 503) } },
        onRequest: session,
      },
      async (request) => {
        const { connections } = await deps.sso.listConnections({ actorUserId: sessionOf(request).userId, organizationId: request.params.org_id }, request.ctx);
        return { items: connections.map(connectionView) };
      },
    );

    app.get(
      '/v0/orgs/:org_id/sso/connections/:id',
      {
        schema: { tags, summary: 'One connection (sso:manage); another organisation’s is 404.', params: connectionParams, response: { 200: connectionSchema, ...problemResponses(400, 401, 403, 404, 503) } },
        onRequest: session,
      },
      async (request) => {
        const { connection } = await deps.sso.getConnection(
          { actorUserId: sessionOf(request).userId, organizationId: request.params.org_id, connectionId: request.params.id },
          request.ctx,
        );
        return connectionView(connection!);
      },
    );

    app.patch(
      '/v0/orgs/:org_id/sso/connections/:id',
      {
        schema: {
          tags,
          summary: 'Change a connection (sso:manage): new IdP metadata or certificates (rollover), options, role mapping, a new client secret.',
          params: connectionParams,
          body: updateConnectionBody,
          response: { 200: connectionSchema, ...problemResponses(400, 401, 403, 404, 503) },
        },
        onRequest: session,
      },
      async (request) => {
        const { connection } = await deps.sso.updateConnection(
          { actorUserId: sessionOf(request).userId, organizationId: request.params.org_id, connectionId: request.params.id, ...updateRequestOf(request.body) },
          request.ctx,
        );
        return connectionView(connection!);
      },
    );

    app.delete(
      '/v0/orgs/:org_id/sso/connections/:id',
      {
        schema: { tags, summary: 'Remove a connection (sso:manage); it is no longer a way in.', params: connectionParams, response: { ...noContent, ...problemResponses(400, 401, 403, 404, 503) } },
        onRequest: session,
      },
      async (request, reply) => {
        await deps.sso.deleteConnection(
          { actorUserId: sessionOf(request).userId, organizationId: request.params.org_id, connectionId: request.params.id },
          request.ctx,
        );
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/v0/sso/saml/:connection_id/metadata',
      {
        schema: {
          tags,
          summary: 'The SAML service provider’s metadata XML of a connection, for the IdP.',
          params: connectionIdParams,
          response: { 200: z.string().describe('application/samlmetadata+xml'), ...problemResponses(400, 404, 503) },
        },
      },
      async (request, reply) => {
        const { metadataXml } = await deps.sso.getServiceProviderMetadata({ connectionId: request.params.connection_id }, request.ctx);
        // XML as is: the API's serializer writes JSON.
        return reply
          .header('content-type', 'application/samlmetadata+xml; charset=utf-8')
          .serializer((payload: unknown) => String(payload))
          .send(metadataXml);
      },
    );

    app.post(
      '/v0/auth/sso/start',
      {
        schema: {
          tags,
          summary: 'Start a sign-in through the connection of an email’s verified domain or of an organisation: the IdP URL to send the browser to. 404 sso:connection_not_found.',
          body: startSignInBody,
          response: { 200: authorizationUrlSchema, ...problemResponses(400, 404, 429, 502, 503) },
        },
        preHandler: credentialLimit,
      },
      async (request, reply) => {
        const body = request.body;
        const started = await deps.sso.startSignIn(
          {
            email: 'email' in body ? body.email : '',
            organizationSlug: 'org_slug' in body ? body.org_slug : '',
            returnTo: body.return_to ?? '',
            browserBinding: ssoBrowserBinding(deps.cookie.secure).bind(reply, deps.cookie.secure),
          },
          request.ctx,
        );
        return { authorization_url: started.authorizationUrl };
      },
    );

    app.post(
      '/v0/auth/sso/discover',
      {
        schema: {
          tags,
          summary: 'Home-realm discovery before a password: whether the email’s domain signs in through an organisation’s SSO, and whether it must. About the domain only.',
          body: discoverSignInBody,
          response: { 200: discoveredSignInSchema, ...problemResponses(400, 429, 503) },
        },
        preHandler: credentialLimit,
      },
      async (request) => {
        const { sso, enforced } = await deps.sso.discoverSignIn({ email: request.body.email }, request.ctx);
        return { sso, enforced };
      },
    );

    app.post(
      '/v0/sso/saml/:connection_id/acs',
      {
        schema: { tags, summary: 'The SAML assertion consumer service (HTTP-POST binding): redirects to the web app, signed in or at /sso/error?code=…', params: connectionIdParams, body: acsBody },
        bodyLimit: ACS_BODY_LIMIT_BYTES,
        preHandler: credentialLimit,
      },
      async (request, reply) => {
        const binding = ssoBrowserBinding(deps.cookie.secure);
        // Plain HTTP: the cross-site post came without the Lax cookie; post again from this origin.
        if (!deps.cookie.secure && request.body.latchkey_repost === undefined) return sendRepostPage(reply, request.body);
        const browserBinding = binding.take(request, reply, deps.cookie.secure);
        return finishSignIn(reply, request, async () => {
          const { signedIn } = await deps.sso.completeSaml(
            { connectionId: request.params.connection_id, samlResponse: request.body.SAMLResponse, relayState: request.body.RelayState ?? '', browserBinding },
            request.ctx,
          );
          return signedIn!;
        });
      },
    );

    app.get(
      '/v0/sso/oidc/:connection_id/callback',
      {
        schema: { tags, summary: 'The OpenID Connect redirect URI of a connection: redirects to the web app, signed in or at /sso/error?code=…', params: connectionIdParams, querystring: oidcCallbackQuery },
        preHandler: credentialLimit,
      },
      async (request, reply) => {
        const browserBinding = ssoBrowserBinding(deps.cookie.secure).take(request, reply, deps.cookie.secure);
        return finishSignIn(reply, request, async () => {
          const { code, state } = request.query;
          // The provider's own error (the person cancelled, consent refused) or a callback without a code: nothing to complete.
          if (!code || !state) throw new AppError('sso:response_invalid');
          const { signedIn } = await deps.sso.completeOidc({ connectionId: request.params.connection_id, code, state, browserBinding }, request.ctx);
          return signedIn!;
        });
      },
    );
  };
}
