import { type identityV1 } from '@latchkey/contracts';
import { AppError } from '@latchkey/errors';
import type { ServiceHandlers } from '@latchkey/grpc-kit';
import { confirmEmailChange, requestEmailChange } from './email-change';
import type { IdentityDeps } from './identity-deps';
import { changePassword, checkCurrentPassword } from './password-change';
import { deleteUser } from './account-deletion';
import { authenticatePassword } from './password-login';
import { requestPasswordReset, resetPassword } from './password-recovery';
import { createVerifiedUser, registerUser, sendVerificationEmail, verifyEmail } from './registration';
import { findUserByEmail, findUserById } from './user-store';
import { normalizeEmail } from './account-rules';
import { toUserMessage } from './user-message';

type IdentityHandlers = ServiceHandlers<typeof identityV1.IdentityServiceService>;

/** One thin function per RPC: unpack the request, call the operation, shape the reply. */
export function identityHandlers(deps: IdentityDeps): IdentityHandlers {
  return {
    async registerUser(request, { requestId }) {
      return { user: toUserMessage(await registerUser(deps, request, requestId)) };
    },
    async authenticatePassword(request, { logger }) {
      const user = await authenticatePassword(deps, request, (error) =>
        logger.warn({ err: error }, 'could not upgrade a password hash'),
      );
      return { user: toUserMessage(user) };
    },
    async getUserByEmail({ email }) {
      const user = await findUserByEmail(deps.pool, normalizeEmail(email));
      return { user: user && toUserMessage(user) };
    },
    async createVerifiedUser(request) {
      return { user: toUserMessage(await createVerifiedUser(deps, request)) };
    },
    async getUser({ userId }) {
      const user = await findUserById(deps.pool, userId).catch(rethrowMalformedId);
      if (!user) throw new AppError('auth:unauthorized');
      return { user: toUserMessage(user) };
    },
    async verifyEmail({ token }) {
      return { user: toUserMessage(await verifyEmail(deps, token)) };
    },
    async sendVerificationEmail(request, { requestId }) {
      await sendVerificationEmail(deps, request, requestId);
      return {};
    },
    async requestPasswordReset({ email }, { requestId }) {
      await requestPasswordReset(deps, email, requestId);
      return {};
    },
    async resetPassword(request, { requestId }) {
      return { userId: await resetPassword(deps, request, requestId) };
    },
    async changePassword(request, { requestId }) {
      await changePassword(deps, request, requestId);
      return {};
    },
    async requestEmailChange(request, { requestId }) {
      await requestEmailChange(deps, request, requestId);
      return {};
    },
    async checkPassword({ userId, password }) {
      await checkCurrentPassword(deps, userId, password);
      return {};
    },
    async deleteUser({ userId }, { requestId }) {
      await deleteUser(deps, userId, requestId);
      return {};
    },
    async confirmEmailChange({ token }, { requestId }) {
      return { user: toUserMessage(await confirmEmailChange(deps, token, requestId)) };
    },
  };
}

/** PostgreSQL rejects a malformed uuid with 22P02; for a caller that is an unknown user. */
function rethrowMalformedId(error: unknown): undefined {
  if ((error as { code?: unknown }).code === '22P02') return undefined;
  throw error;
}
