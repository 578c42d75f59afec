import type { oauthV1 } from '@latchkey/contracts';
import { AppError } from '@latchkey/errors';
import type { ServiceHandlers } from '@latchkey/grpc-kit';
import { beginAuthorization } from './authorization';
import { requireOpaque, requireUserId } from './input-rules';
import type { OAuthDeps } from './oauth-deps';
import {
  providerFromMessage,
  providerToMessage,
  purposeFromMessage,
  toConnectionMessage,
  toLoginMessage,
} from './oauth-messages';
import { confirmIdentity, deleteUserData, linkProvider, listConnections, unlinkProvider } from './provider-linking';
import { completeLogin, completeSignup } from './user-resolution';
import { removeRecentConnections } from './reset-removals';

type OAuthHandlers = ServiceHandlers<typeof oauthV1.OAuthServiceService>;

/** What the provider sent back for a state issued to a signed-in user (LinkProvider, ConfirmIdentity). */
function userCallbackOf(request: { provider: oauthV1.Provider; userId: string; code: string; state: string; browserBinding: string }) {
  return {
    provider: providerFromMessage(request.provider),
    userId: requireUserId(request.userId),
    code: requireOpaque(request.code, 'code'),
    state: requireOpaque(request.state, 'state'),
    // Empty when the user agent holds none: the state then does not match.
    browserBinding: request.browserBinding,
  };
}

/** One thin function per RPC: unpack and check the request, call the operation, shape the reply. */
export function oauthHandlers(deps: OAuthDeps): OAuthHandlers {
  return {
    async listProviders() {
      return { providers: deps.providers.names().map(providerToMessage) };
    },
    async createAuthorization(request, context) {
      const provider = providerFromMessage(request.provider);
      const purpose = purposeFromMessage(request.purpose);
      if (purpose === 'login' && request.userId !== '') {
        throw AppError.validation([{ field: 'user_id', message: 'must be empty for a login' }]);
      }
      const userId = purpose === 'login' ? undefined : requireUserId(request.userId);
      const browserBinding = requireOpaque(request.browserBinding, 'browser_binding');
      const started = await beginAuthorization(deps, { provider, purpose, userId, browserBinding }, context);
      return { authorizationUrl: started.url.href, state: started.state, expiresAt: started.expiresAt };
    },
    async completeLogin(request, context) {
      const input = {
        provider: providerFromMessage(request.provider),
        code: requireOpaque(request.code, 'code'),
        state: requireOpaque(request.state, 'state'),
        // Empty when the user agent holds none: the state then does not match.
        browserBinding: request.browserBinding,
      };
      return toLoginMessage(await completeLogin(deps, input, context));
    },
    async completeSignup(request, context) {
      const input = { pendingToken: requireOpaque(request.pendingToken, 'pending_token'), handle: request.handle };
      const user = await completeSignup(deps, input, context);
      return { userId: user.id, user };
    },
    async linkProvider(request, context) {
      return { connection: toConnectionMessage(await linkProvider(deps, userCallbackOf(request), context)) };
    },
    async confirmIdentity(request, context) {
      return { connection: toConnectionMessage(await confirmIdentity(deps, userCallbackOf(request), context)) };
    },
    async listConnections({ userId }) {
      return { connections: (await listConnections(deps, requireUserId(userId))).map(toConnectionMessage) };
    },
    async unlinkProvider(request, context) {
      await unlinkProvider(
        deps,
        { provider: providerFromMessage(request.provider), userId: requireUserId(request.userId) },
        context,
      );
      return {};
    },
    async removeRecentConnections(request, context) {
      const input = { userId: requireUserId(request.userId), resetId: requireUserId(request.resetId, 'reset_id') };
      const { removed, remaining } = await removeRecentConnections(deps, input, context);
      if (removed.length > 0) context.logger.info({ user_id: input.userId, removed_connections: removed.length }, 'connections removed by a password reset');
      return { removed: [...removed], remaining: [...remaining] };
    },
    async deleteUserData({ userId }) {
      await deleteUserData(deps, requireUserId(userId));
      return {};
    },
  };
}
