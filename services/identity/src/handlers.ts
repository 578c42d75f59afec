import { identityV1 } from '@latchkey/contracts';
import { AppError } from '@latchkey/errors';
import type { ServiceHandlers } from '@latchkey/grpc-kit';
import { cancelEmailChange, confirmEmailChange, requestEmailChange } from './email-change';
import type { IdentityDeps } from './identity-deps';
import { changePassword, checkCurrentPassword } from './password-change';
import { deleteUser, purgeUnverifiedUsers } from './account-deletion';
import { authenticatePassword } from './password-login';
import { requestPasswordReset, resetPassword } from './password-recovery';
import { findReset } from './reset-records';
import { createVerifiedUser, registerUser, sendVerificationEmail, verifyEmail } from './registration';
import { findUserWithEndedSessions } from './ended-sessions';
import { findMembership, organizationOf } from './orgs/membership-store';
import { refuseWhenSsoRequired } from './orgs/sso-enforcement';
import { dropSsoConnection, findSsoOrganization, provisionSsoMember } from './orgs/sso-members';
import { findUserByEmail, findUserById } from './user-store';
import { normalizeEmail } from './account-rules';
import { toUserMessage } from './user-message';
import { recordVouchedSignIn } from './vouched-sign-in';
import { prepareProviderLink } from './provider-link';
import { recordSessionsEnded } from './session-revocation';
import { listUnsettledCredentials, reserveCredential, reserveCredentialRemoval, settleCredentials } from './credential-ledger';

type IdentityHandlers = ServiceHandlers<typeof identityV1.IdentityServiceService>;

/** Whether a caller is about to sign an account in by a method that SSO enforcement refuses. */
function signsIn(method: identityV1.SignInMethod | undefined): boolean {
  return method !== undefined && method !== identityV1.SignInMethod.SIGN_IN_METHOD_UNSPECIFIED;
}

/** One thin function per RPC: unpack the request, call the operation, shape the reply. */
export function identityHandlers(deps: IdentityDeps): IdentityHandlers {
  return {
    async registerUser(request, context) {
      return { user: toUserMessage(await registerUser(deps, request, context)) };
    },
    async authenticatePassword(request, context) {
      return { user: toUserMessage(await authenticatePassword(deps, request, context)) };
    },
    async getUserByEmail({ email, signIn }) {
      if (signsIn(signIn)) await refuseWhenSsoRequired(deps.pool, email);
      const user = await findUserByEmail(deps.pool, normalizeEmail(email));
      return { user: user && toUserMessage(user) };
    },
    async createVerifiedUser(request, context) {
      if (signsIn(request.signIn)) await refuseWhenSsoRequired(deps.pool, request.email);
      return { user: toUserMessage(await createVerifiedUser(deps, request, context)) };
    },
    async getUser({ userId, sessionCheck, activeOrganizationId, signIn }, context) {
      if (sessionCheck) {
        const found = await findUserWithEndedSessions(deps.pool, userId, sessionCheck.sessionId).catch(rethrowMalformedId);
        if (!found) throw new AppError('auth:unauthorized');
        return { user: toUserMessage(found.user), endedSessions: found.endedSessions };
      }
      const [user, membership] = await Promise.all([
        findUserById(deps.pool, userId).catch(rethrowMalformedId),
        activeOrganizationId === undefined ? undefined : findMembership(deps.pool, userId, activeOrganizationId),
      ]);
      if (!user) throw new AppError('auth:unauthorized');
      if (signsIn(signIn)) await refuseWhenSsoRequired(deps.pool, user.email);
      await recordVouchedSignIn(deps.pool, user, signIn, context);
      return { user: toUserMessage(user), ...(membership ? { activeOrganization: organizationOf(membership) } : {}) };
    },
    async verifyEmail({ token }, context) {
      return { user: toUserMessage(await verifyEmail(deps, token, context)) };
    },
    async sendVerificationEmail(request, context) {
      await sendVerificationEmail(deps, request, context);
      return {};
    },
    async requestPasswordReset({ email }, context) {
      await requestPasswordReset(deps, email, context);
      return {};
    },
    async resetPassword(request, context) {
      const reset = await resetPassword(deps, request, context);
      return {
        userId: reset.userId,
        email: reset.email,
        resetId: reset.resetId,
        resetAt: reset.resetAt,
        methodsAddedAfter: reset.methodsAddedAfter,
      };
    },
    async getPasswordReset({ userId, resetId }) {
      return { reset: await findReset(deps.pool, userId, resetId) };
    },
    async changePassword(request, context) {
      return changePassword(deps, request, context);
    },
    async requestEmailChange(request, context) {
      await requestEmailChange(deps, request, context);
      return {};
    },
    async cancelEmailChange({ token }, context) {
      await cancelEmailChange(deps, token, context);
      return {};
    },
    async prepareProviderLink({ userId, provider }, context) {
      const { user, passwordDropped } = await prepareProviderLink(deps, { userId, provider }, context).catch((error: unknown) => {
        rethrowMalformedId(error);
        throw new AppError('auth:unauthorized');
      });
      return { user: toUserMessage(user), passwordDropped };
    },
    async recordSessionsEnded(request, context) {
      await recordSessionsEnded(deps, request, context);
      return {};
    },
    async checkPassword({ userId, password }) {
      await checkCurrentPassword(deps, userId, password);
      return {};
    },
    async deleteUser({ userId }, context) {
      await deleteUser(deps, userId, context);
      return {};
    },
    async confirmEmailChange({ token }, context) {
      return { user: toUserMessage(await confirmEmailChange(deps, token, context)) };
    },
    async purgeUnverifiedUsers({ registeredBefore, limit }, context) {
      if (!registeredBefore) throw AppError.validation([{ field: 'registered_before', message: 'is required' }]);
      return { deletedUsers: await purgeUnverifiedUsers(deps, { registeredBefore, limit }, context) };
    },
    async reserveCredential(request, context) {
      await reserveCredential(deps, request, context);
      return {};
    },
    async reserveCredentialRemoval(request, context) {
      await reserveCredentialRemoval(deps, request, context);
      context.logger.info({ user_id: request.userId, kind: request.kind, reference: request.reference }, 'credential removal reserved');
      return {};
    },
    async settleCredentials(request, context) {
      return { takeBacks: await settleCredentials(deps, request, context) };
    },
    async listUnsettledCredentials(request, context) {
      return { userIds: await listUnsettledCredentials(deps.pool, request, context) };
    },
    async findSsoOrganization(request) {
      return findSsoOrganization(deps.pool, request);
    },
    async provisionSsoMember(request, context) {
      const { user, created, member } = await provisionSsoMember(deps, request, context);
      return { user: toUserMessage(user), created, member };
    },
    async dropSsoConnection(request) {
      return { removed: await dropSsoConnection(deps.pool, request) };
    },
  };
}

/** PostgreSQL rejects a malformed uuid with 22P02; for a caller that is an unknown user. */
function rethrowMalformedId(error: unknown): undefined {
  if ((error as { code?: unknown }).code === '22P02') return undefined;
  throw error;
}
