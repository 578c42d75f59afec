import type { passkeysV1 } from '@latchkey/contracts';
import type { ServiceHandlers } from '@latchkey/grpc-kit';
import { beginAuthentication, finishAuthentication } from './passkey-authentication';
import { deleteUserData, deleteUserPasskey, listPasskeys, renameUserPasskey } from './passkey-management';
import { passkeyMessage } from './passkey-message';
import { beginRegistration, finishRegistration } from './passkey-registration';
import type { PasskeysDeps } from './passkeys-deps';
import { removeRecentPasskeys } from './reset-removals';

type PasskeysHandlers = ServiceHandlers<typeof passkeysV1.PasskeysServiceService>;

/**
 * One thin function per RPC: unpack the request, call the operation, shape
 * the reply. Logs name the user and the passkey, never a key, challenge or
 * authenticator response.
 */
export function passkeysHandlers(deps: PasskeysDeps): PasskeysHandlers {
  return {
    async beginRegistration(request, context) {
      return { optionsJson: await beginRegistration(deps, request, context) };
    },
    async finishRegistration(request, context) {
      const passkey = await finishRegistration(deps, request, context);
      context.logger.info({ user_id: request.userId, passkey_id: passkey.id }, 'passkey registered');
      return { passkey: passkeyMessage(passkey) };
    },
    async listPasskeys({ userId }) {
      return { passkeys: (await listPasskeys(deps, userId)).map(passkeyMessage) };
    },
    async renamePasskey(request) {
      return { passkey: passkeyMessage(await renameUserPasskey(deps, request)) };
    },
    async deletePasskey(request, context) {
      await deleteUserPasskey(deps, request, context);
      context.logger.info({ user_id: request.userId, passkey_id: request.passkeyId }, 'passkey deleted');
      return {};
    },
    async beginAuthentication(request) {
      return { optionsJson: await beginAuthentication(deps, request) };
    },
    async finishAuthentication(request, context) {
      const passkey = await finishAuthentication(deps, request, context);
      context.logger.info({ user_id: passkey.userId, passkey_id: passkey.id }, 'passkey assertion verified');
      return { userId: passkey.userId, passkey: passkeyMessage(passkey) };
    },
    async removeRecentPasskeys(request, context) {
      const { removed, remaining } = await removeRecentPasskeys(deps, request, context);
      if (removed.length > 0) context.logger.info({ user_id: request.userId, removed_passkeys: removed.length }, 'passkeys removed by a password reset');
      return { removed: [...removed], remaining: [...remaining] };
    },
    async deleteUserData({ userId }, context) {
      await deleteUserData(deps, userId);
      context.logger.info({ user_id: userId }, 'passkey data deleted');
      return {};
    },
  };
}
