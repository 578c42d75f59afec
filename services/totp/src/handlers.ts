import type { totpV1 } from '@latchkey/contracts';
import type { ServiceHandlers } from '@latchkey/grpc-kit';
import { AppError } from '@latchkey/errors';
import type { TotpDeps } from './totp-deps';
import { confirmSecondFactor } from './second-factor-confirmation';
import { beginLogin, createLoginChallenge, verifyLoginChallenge } from './totp-login';
import { deleteTotpUserData, disableTotp, getTotpStatus, regenerateBackupCodes } from './totp-settings';
import { beginTotpSetup, enableTotp } from './totp-setup';

type TotpHandlers = ServiceHandlers<typeof totpV1.TotpServiceService>;

/**
 * One thin function per RPC: unpack the request, call the operation, shape
 * the reply. Logs name the user and the event, never a secret, code or token.
 */
export function totpHandlers(deps: TotpDeps): TotpHandlers {
  return {
    async beginSetup(request) {
      return beginTotpSetup(deps, request);
    },
    async enable(request, context) {
      const backupCodes = await enableTotp(deps, request, context);
      context.logger.info({ user_id: request.userId }, 'totp enabled');
      return { backupCodes };
    },
    async getStatus({ userId }) {
      return getTotpStatus(deps, userId);
    },
    async disable(request, context) {
      await disableTotp(deps, request, context);
      context.logger.info({ user_id: request.userId }, 'totp disabled');
      return {};
    },
    async regenerateBackupCodes(request, context) {
      const backupCodes = await regenerateBackupCodes(deps, request, context);
      context.logger.info({ user_id: request.userId }, 'backup codes regenerated');
      return { backupCodes };
    },
    async createLoginChallenge({ userId, sessionEpoch }) {
      const { token, expiresAt } = await createLoginChallenge(deps, userId, sessionEpoch);
      return { tempToken: token, expiresAt };
    },
    async beginLogin({ userId, firstFactor, sessionEpoch, organizationId }) {
      if (firstFactor !== '' && firstFactor !== 'pwd' && firstFactor !== 'fed') {
        throw AppError.validation([{ field: 'first_factor', message: 'must be pwd or fed' }]);
      }
      const challenge = await beginLogin(deps, userId, {
        firstFactor: firstFactor === 'fed' ? 'fed' : 'pwd',
        sessionEpoch,
        organizationId: organizationId === '' ? undefined : organizationId,
      });
      return challenge
        ? { totpRequired: true, tempToken: challenge.token, expiresAt: challenge.expiresAt }
        : { totpRequired: false, tempToken: '' };
    },
    async verifyLoginChallenge(request, context) {
      const { userId, firstFactor, sessionEpoch, organizationId } = await verifyLoginChallenge(deps, request);
      context.logger.info({ user_id: userId, proof: request.code === undefined ? 'backup_code' : 'totp' }, 'login challenge passed');
      return { userId, firstFactor, sessionEpoch, organizationId: organizationId ?? '' };
    },
    async confirmSecondFactor(request, context) {
      await confirmSecondFactor(deps, request);
      context.logger.info({ user_id: request.userId }, 'second factor confirmed');
      return {};
    },
    async deleteUserData({ userId }, context) {
      await deleteTotpUserData(deps, userId);
      context.logger.info({ user_id: userId }, 'totp data deleted');
      return {};
    },
  };
}
