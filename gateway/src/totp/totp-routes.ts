import { signInMethods } from '../sessions/session-store';
import { assertMaySignIn } from '../sessions/sign-in';
import type { RequestContext } from '@latchkey/grpc-kit';
import { AppError } from '@latchkey/errors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRecentAuthentication, requireSession, sessionOf, startSession, type SessionAccess } from '../sessions/session-auth';
import type { CredentialLimits } from '../limits/credential-limits';
import type { IdentityClient, PasskeysClient, TotpClient } from '../service-clients';
import { userSchema } from '../account-view/user-schema';
import { noContent, problemResponses } from '../http/problem-schema';
import {
  backupCodesSchema,
  codeBody,
  enableBody,
  totpSetupSchema,
  totpStatusSchema,
  verifyBody,
} from './totp-schemas';
import { userView } from '../account-view/user-view';

/** What the TOTP routes use. */
export type TotpRoutesDeps = SessionAccess & {
  readonly identity: IdentityClient;
  readonly totp: TotpClient;
  /** Whether the account's passkeys still sign in: a change to its ways in needs a multi-factor proof then. */
  readonly passkeys: PasskeysClient;
  readonly limits: CredentialLimits;
};

/** /v0/auth/totp: the second factor (RFC 6238 codes and backup codes). */
export function totpRoutes(deps: TotpRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const session = requireSession(deps);
    // A thief's authenticator must not become the owner's second factor.
    const recentSession = [session, requireRecentAuthentication(deps)];
    const tags = ['totp'];

    /** Who the account is, for the otpauth label and the notice mails. */
    const accountOf = async (userId: string, context: RequestContext) => {
      const { user } = await deps.identity.getUser({ userId }, context);
      return { userId, accountEmail: user!.email, accountHandle: user!.handle };
    };

    app.post(
      '/v0/auth/totp/setup',
      {
        schema: {
          tags,
          summary: 'Start enabling TOTP: a fresh secret, its otpauth URI as a QR code, and a setup token.',
          response: { 200: totpSetupSchema, ...problemResponses(401, 403, 409, 500, 503) },
        },
        onRequest: recentSession,
      },
      async (request) => {
        const { userId, accountEmail } = await accountOf(sessionOf(request).userId, request.ctx);
        const setup = await deps.totp.beginSetup({ userId, accountEmail }, request.ctx);
        return {
          secret: setup.secret,
          otpauth_uri: setup.otpauthUri,
          qr_code: setup.qrCodePng,
          setup_token: setup.setupToken,
        };
      },
    );

    app.post(
      '/v0/auth/totp/enable',
      {
        schema: {
          tags,
          summary: 'Turn TOTP on with a code of the new secret; answers the 10 backup codes, once.',
          body: enableBody,
          response: { 200: backupCodesSchema, ...problemResponses(400, 401, 403, 409, 429, 503) },
        },
        onRequest: recentSession,
      },
      async (request) => {
        const account = await accountOf(sessionOf(request).userId, request.ctx);
        const { backupCodes } = await deps.totp.enable(
          { ...account, setupToken: request.body.setup_token, code: request.body.code },
          request.ctx,
        );
        // Sessions signed in with the password alone end: from now on a sign-in needs the second factor.
        await deps.sessions.deleteAllForUser(account.userId, { reason: 'totp_enabled', keepPublicId: sessionOf(request).publicId }, request.ctx);
        await deps.sessions.markSecondFactor(sessionOf(request));
        await deps.sessions.forgetProfiles(account.userId);
        return { backup_codes: backupCodes };
      },
    );

    app.get(
      '/v0/auth/totp/status',
      {
        schema: {
          tags,
          summary: 'Whether TOTP is on, since when, and how many backup codes are left.',
          response: { 200: totpStatusSchema, ...problemResponses(401, 503) },
        },
        onRequest: session,
      },
      async (request) => {
        const status = await deps.totp.getStatus({ userId: sessionOf(request).userId }, request.ctx);
        return {
          enabled: status.enabled,
          enabled_at: status.enabledAt?.toISOString() ?? null,
          backup_codes_remaining: status.backupCodesRemaining,
        };
      },
    );

    app.post(
      '/v0/auth/totp/verify',
      {
        schema: {
          tags,
          summary: 'Finish a sign-in that answered totp_required, with a code or a backup code; sets the session cookie.',
          body: verifyBody,
          response: { 200: userSchema, ...problemResponses(400, 401, 403, 429, 503) },
        },
        preHandler: deps.limits.perClientIp,
      },
      async (request, reply) => {
        const { temp_token, code, backup_code } = request.body;
        const { userId, firstFactor, sessionEpoch, organizationId } = await deps.totp.verifyLoginChallenge(
          { tempToken: temp_token, code, backupCode: backup_code },
          request.ctx,
        );
        const { user } = await deps.identity.getUser({ userId }, request.ctx);
        // A password change, reset or disable since the first factor ends the sign-in it began.
        if (user!.sessionEpoch > sessionEpoch) throw new AppError('totp:temp_token_invalid');
        assertMaySignIn(user!);
        // TOTP is on: it just checked the code.
        const view = userView(user!, true);
        const methods = signInMethods(firstFactor === 'fed' ? 'fed' : 'pwd', true);
        // The organisation an SSO sign-in began for; the session checks the membership whenever it is used.
        await startSession(deps, request, reply, { userId, handle: user!.handle, sessionEpoch: user!.sessionEpoch, methods }, view, organizationId || undefined);
        return view;
      },
    );

    app.post(
      '/v0/auth/totp/backup-codes/regenerate',
      {
        schema: {
          tags,
          summary: 'Replace every backup code; needs a current TOTP code. Answers the 10 new codes, once.',
          body: codeBody,
          response: { 200: backupCodesSchema, ...problemResponses(400, 401, 429, 503) },
        },
        onRequest: session,
      },
      async (request) => {
        const account = await accountOf(sessionOf(request).userId, request.ctx);
        const { backupCodes } = await deps.totp.regenerateBackupCodes({ ...account, code: request.body.code }, request.ctx);
        return { backup_codes: backupCodes };
      },
    );

    app.post(
      '/v0/auth/totp/disable',
      {
        schema: {
          tags,
          summary: 'Turn TOTP off; needs a current TOTP code and a recent proof as strong as a sign-in.',
          body: codeBody,
          response: { ...noContent, ...problemResponses(400, 401, 403, 429, 503) },
        },
        // A stolen password and session must not take the second factor away.
        onRequest: recentSession,
      },
      async (request, reply) => {
        const account = await accountOf(sessionOf(request).userId, request.ctx);
        await deps.totp.disable({ ...account, code: request.body.code }, request.ctx);
        await deps.sessions.forgetProfiles(account.userId);
        return reply.code(204).send(null);
      },
    );
  };
}
