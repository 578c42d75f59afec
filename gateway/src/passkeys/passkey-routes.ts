import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { identityV1 } from '@latchkey/contracts';
import { AppError } from '@latchkey/errors';
import { userSchema } from '../account-view/user-schema';
import { accountWithTotp, userView } from '../account-view/user-view';
import { passkeyBrowserBinding } from '../http/browser-binding';
import { noContent, problemResponses } from '../http/problem-schema';
import type { CredentialLimits } from '../limits/credential-limits';
import type { IdentityClient, PasskeysClient, TotpClient } from '../service-clients';
import { requireRecentAuthentication, requireSession, sessionOf, startSession, type SessionAccess } from '../sessions/session-auth';
import { assertMaySignIn } from '../sessions/sign-in';
import {
  authenticationBody,
  creationOptionsSchema,
  passkeyIdParams,
  passkeyListSchema,
  passkeySchema,
  registrationBody,
  renameBody,
  requestOptionsSchema,
} from './passkey-schemas';
import { passkeyView } from './passkey-view';

/** What the passkey routes use. */
export type PasskeyRoutesDeps = SessionAccess & {
  readonly identity: IdentityClient;
  readonly totp: TotpClient;
  readonly passkeys: PasskeysClient;
  readonly limits: CredentialLimits;
};

/** /v0/auth/passkeys: WebAuthn credentials, registered by a signed-in user and signing in without a password. */
export function passkeyRoutes(deps: PasskeyRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const session = requireSession(deps);
    // A thief holding only a session must not add a way in, nor take the owner's away.
    const recentSession = [session, requireRecentAuthentication(deps)];
    const credentialLimit = deps.limits.perClientIp;
    const tags = ['passkeys'];

    app.post(
      '/v0/auth/passkeys/registration/options',
      {
        schema: {
          tags,
          summary: 'Start adding a passkey: creation options for navigator.credentials.create(), valid 5 minutes in this session.',
          response: { 200: creationOptionsSchema, ...problemResponses(401, 403, 503) },
        },
        onRequest: recentSession,
      },
      async (request) => {
        const { userId, publicId } = sessionOf(request);
        const { optionsJson } = await deps.passkeys.beginRegistration({ userId, binding: publicId }, request.ctx);
        return JSON.parse(optionsJson) as never;
      },
    );

    app.post(
      '/v0/auth/passkeys/registration/verify',
      {
        schema: {
          tags,
          summary: 'Finish adding a passkey with what the authenticator answered; a notice is mailed.',
          body: registrationBody,
          response: { 201: passkeySchema, ...problemResponses(400, 401, 403, 409, 503) },
        },
        onRequest: recentSession,
      },
      async (request, reply) => {
        const { userId, publicId } = sessionOf(request);
        const { passkey } = await deps.passkeys.finishRegistration(
          { userId, binding: publicId, responseJson: JSON.stringify(request.body.response), name: request.body.name ?? '' },
          request.ctx,
        );
        await deps.sessions.forgetProfiles(userId);
        return reply.code(201).send(passkeyView(passkey!));
      },
    );

    app.get(
      '/v0/auth/passkeys',
      {
        schema: {
          tags,
          summary: 'The passkeys of the signed-in account, oldest first.',
          response: { 200: passkeyListSchema, ...problemResponses(401, 503) },
        },
        onRequest: session,
      },
      async (request) => {
        const { passkeys } = await deps.passkeys.listPasskeys({ userId: sessionOf(request).userId }, request.ctx);
        return { items: passkeys.map(passkeyView) };
      },
    );

    app.patch(
      '/v0/auth/passkeys/:id',
      {
        schema: {
          tags,
          summary: 'Rename a passkey.',
          params: passkeyIdParams,
          body: renameBody,
          response: { 200: passkeySchema, ...problemResponses(400, 401, 404, 503) },
        },
        onRequest: session,
      },
      async (request) => {
        const { passkey } = await deps.passkeys.renamePasskey(
          { userId: sessionOf(request).userId, passkeyId: request.params.id, name: request.body.name },
          request.ctx,
        );
        return passkeyView(passkey!);
      },
    );

    app.delete(
      '/v0/auth/passkeys/:id',
      {
        schema: {
          tags,
          summary: 'Remove a passkey, unless it is the account’s last way to sign in; a notice is mailed.',
          params: passkeyIdParams,
          response: { ...noContent, ...problemResponses(400, 401, 403, 404, 409, 503) },
        },
        onRequest: recentSession,
      },
      async (request, reply) => {
        const { userId } = sessionOf(request);
        await deps.passkeys.deletePasskey({ userId, passkeyId: request.params.id }, request.ctx);
        await deps.sessions.forgetProfiles(userId);
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/v0/auth/passkeys/authentication/options',
      {
        schema: {
          tags,
          summary: 'Start signing in with a passkey: request options for navigator.credentials.get(), valid 5 minutes in this browser.',
          response: { 200: requestOptionsSchema, ...problemResponses(429, 503) },
        },
        preHandler: credentialLimit,
      },
      async (request, reply) => {
        const binding = passkeyBrowserBinding.bind(reply, deps.cookie.secure);
        const { optionsJson } = await deps.passkeys.beginAuthentication({ binding }, request.ctx);
        return JSON.parse(optionsJson) as never;
      },
    );

    app.post(
      '/v0/auth/passkeys/authentication/verify',
      {
        schema: {
          tags,
          summary: 'Sign in with what the authenticator answered; sets the session cookie. No TOTP code follows: a passkey is multi-factor.',
          body: authenticationBody,
          response: { 200: userSchema, ...problemResponses(400, 403, 429, 503) },
        },
        preHandler: credentialLimit,
      },
      async (request, reply) => {
        const binding = passkeyBrowserBinding.take(request, reply, deps.cookie.secure);
        if (binding === '') throw new AppError('passkey:challenge_invalid');
        const { userId } = await deps.passkeys.finishAuthentication(
          { binding, responseJson: JSON.stringify(request.body.response), expectedUserId: '' },
          request.ctx,
        );
        const { user, totpEnabled } = await accountWithTotp(deps, userId, request.ctx, (id, context) => passkeyOwner(deps, id, context));
        assertMaySignIn(user);
        const view = userView(user, totpEnabled);
        await startSession(deps, request, reply, { userId, handle: user.handle, sessionEpoch: user.sessionEpoch, methods: ['webauthn'] }, view);
        return view;
      },
    );
  };
}

/**
 * The account a verified passkey belongs to. A deleted account's passkeys
 * outlive it until the cleanup job runs; they sign in to nothing, and say
 * no more than a failed verification would.
 */
async function passkeyOwner(deps: Pick<PasskeyRoutesDeps, 'identity'>, userId: string, context: Parameters<IdentityClient['getUser']>[1]) {
  try {
    // A sign-in: identity refuses an account whose organisation enforces SSO (auth:sso_required).
    return await deps.identity.getUser({ userId, signIn: identityV1.SignInMethod.SIGN_IN_METHOD_PASSKEY }, context);
  } catch (error) {
    if (error instanceof AppError && error.code === 'auth:unauthorized') throw new AppError('passkey:verification_failed');
    throw error;
  }
}
