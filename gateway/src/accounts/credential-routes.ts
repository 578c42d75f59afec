import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '@latchkey/errors';
import { optionalSession, requireRecentAuthentication, requireSession, sessionOf, startSession, type SessionAccess } from '../sessions/session-auth';
import type { CredentialLimits } from '../limits/credential-limits';
import type { IdentityClient, OAuthClient, PasskeysClient, TotpClient } from '../service-clients';
import { takeBackRecentMethods } from './reset-removals';
import { userSchema } from '../account-view/user-schema';
import { changeEmailBody, changePasswordBody, emailBody, resendBody, resetPasswordBody, tokenBody } from './account-schemas';
import { accepted, noContent, problemResponses } from '../http/problem-schema';
import { viewOf } from '../account-view/user-view';
import { sessionAccountView } from '../sessions/session-profile';

/** What the credential routes use. */
export type CredentialRoutesDeps = SessionAccess & {
  readonly identity: IdentityClient;
  readonly oauth: OAuthClient;
  readonly totp: TotpClient;
  readonly passkeys: PasskeysClient;
  readonly limits: CredentialLimits;
};

/**
 * /v0/auth flows that change what proves the account: the mailed-token
 * flows (verify email, password reset, email change) and the password and
 * email changes of a signed-in user.
 */
export function credentialRoutes(deps: CredentialRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const credentialLimit = deps.limits.perClientIp;
    const session = requireSession(deps);
    const tags = ['authentication'];

    app.post(
      '/v0/auth/verify-email',
      {
        schema: {
          tags,
          summary: 'Verify the email with the token from the verification mail.',
          body: tokenBody,
          response: { 200: userSchema, ...problemResponses(400, 429, 503) },
        },
        preHandler: credentialLimit,
      },
      async (request) => {
        const { user } = await deps.identity.verifyEmail(request.body, request.ctx);
        await deps.sessions.forgetProfiles(user!.id);
        return viewOf(deps, user!, request.ctx);
      },
    );

    app.post(
      '/v0/auth/resend-verification-email',
      {
        schema: {
          tags,
          summary: 'Mail a new verification link: for the session user, or for `email` without a session. Always 202.',
          body: resendBody,
          response: { ...accepted, ...problemResponses(400, 429, 503) },
        },
        preHandler: credentialLimit,
      },
      async (request, reply) => {
        const current = await optionalSession(deps, request);
        if (current) {
          const { user } = await deps.identity.getUser({ userId: current.userId }, request.ctx);
          if (await deps.limits.mayMail(user!.email)) {
            await deps.identity.sendVerificationEmail({ userId: current.userId }, request.ctx);
          }
        } else {
          const email = request.body?.email;
          if (!email) throw AppError.validation([{ field: 'email', message: 'is required without a session' }]);
          if (await deps.limits.mayMail(email)) await deps.identity.sendVerificationEmail({ email }, request.ctx);
        }
        return reply.code(202).send(null);
      },
    );

    app.post(
      '/v0/auth/forgot-password',
      {
        schema: {
          tags,
          summary: 'Mail a password reset link if an account has this email. Always 202.',
          body: emailBody,
          response: { ...accepted, ...problemResponses(400, 429, 503) },
        },
        preHandler: credentialLimit,
      },
      async (request, reply) => {
        if (await deps.limits.mayMail(request.body.email)) {
          await deps.identity.requestPasswordReset(request.body, request.ctx);
        }
        return reply.code(202).send(null);
      },
    );

    app.post(
      '/v0/auth/reset-password',
      {
        schema: {
          tags,
          summary:
            'Set a new password with the token from the reset mail; every session of the account ends, and passkeys and provider links added in the hours before go.',
          body: resetPasswordBody,
          response: { ...noContent, ...problemResponses(400, 429, 503) },
        },
        preHandler: credentialLimit,
      },
      async (request, reply) => {
        const reset = await deps.identity.resetPassword({ token: request.body.token, newPassword: request.body.new_password }, request.ctx);
        await deps.sessions.deleteAllForUser(reset.userId, { reason: 'announced_by_identity' }, request.ctx);
        await takeBackRecentMethods(deps, reset, request.ctx);
        await deps.limits.clearLoginFailures(reset.email);
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/v0/auth/change-password',
      {
        schema: {
          tags,
          summary: 'Change the password; other sessions end and this one gets a new cookie.',
          body: changePasswordBody,
          response: { ...noContent, ...problemResponses(400, 401, 429, 503) },
        },
        onRequest: session,
      },
      async (request, reply) => {
        const current = sessionOf(request);
        // A wrong current password counts like a wrong login: a stolen session is no password oracle.
        const { email } = await sessionAccountView(deps, current, request);
        const { sessionEpoch } = await deps.limits.checkPassword(email, request, () =>
          deps.identity.changePassword(
            { userId: current.userId, currentPassword: request.body.current_password, newPassword: request.body.new_password },
            request.ctx,
          ),
        );
        // A new id for the session that proved the password, so a stolen old cookie is worthless.
        await deps.sessions.deleteAllForUser(current.userId, { reason: 'announced_by_identity' }, request.ctx);
        await startSession(deps, request, reply, { userId: current.userId, handle: current.handle, sessionEpoch, methods: ['pwd'] });
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/v0/auth/change-email',
      {
        schema: {
          tags,
          summary:
            'Mail a confirmation link to the new address, and to the current one a link that cancels the change; the email changes when the first is used.',
          body: changeEmailBody,
          response: { ...accepted, ...problemResponses(400, 401, 403, 409, 429, 503) },
        },
        // Moving the address moves password resets: a recent proof, not just a session.
        onRequest: [session, requireRecentAuthentication(deps)],
      },
      async (request, reply) => {
        const current = sessionOf(request);
        await deps.limits.assertEmailChangeAllowed(current.userId, request.body.new_email);
        const { email } = await sessionAccountView(deps, current, request);
        await deps.limits.checkPassword(email, request, () =>
          deps.identity.requestEmailChange(
            { userId: current.userId, currentPassword: request.body.current_password, newEmail: request.body.new_email },
            request.ctx,
          ),
        );
        return reply.code(202).send(null);
      },
    );

    app.post(
      '/v0/auth/cancel-email-change',
      {
        schema: {
          tags,
          summary: 'Cancel a requested email change with the token mailed to the current address; its confirmation link stops working.',
          body: tokenBody,
          response: { ...noContent, ...problemResponses(400, 429, 503) },
        },
        preHandler: credentialLimit,
      },
      async (request, reply) => {
        await deps.identity.cancelEmailChange(request.body, request.ctx);
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/v0/auth/confirm-email-change',
      {
        schema: {
          tags,
          summary: 'Confirm an email change with the token mailed to the new address.',
          body: tokenBody,
          response: { 200: userSchema, ...problemResponses(400, 409, 429, 503) },
        },
        preHandler: credentialLimit,
      },
      async (request) => {
        const current = await optionalSession(deps, request);
        const { user } = await deps.identity.confirmEmailChange(request.body, request.ctx);
        // Whoever moved the address may have done it from a stolen session: every other one ends.
        const keepPublicId = current?.userId === user!.id ? current.publicId : undefined;
        await deps.sessions.deleteAllForUser(user!.id, { reason: 'email_changed', keepPublicId }, request.ctx);
        await deps.sessions.forgetProfiles(user!.id);
        return viewOf(deps, user!, request.ctx);
      },
    );
  };
}
