import type { identityV1 } from '@latchkey/contracts';
import type { RequestContext } from '@latchkey/grpc-kit';
import type { PasskeysDeps } from './passkeys-deps';

/** The account from identity.v1; auth:unauthorized when it does not exist. */
export async function getAccount(deps: Pick<PasskeysDeps, 'identity'>, userId: string, context: RequestContext): Promise<identityV1.User> {
  const { user } = await deps.identity.getUser({ userId }, context);
  return user!;
}

/**
 * Whether the account can sign in without any passkey: with its password or
 * through a linked provider (docs/api.md, "Passkeys").
 */
export async function hasOtherWayIn(
  deps: Pick<PasskeysDeps, 'oauth'>,
  account: Pick<identityV1.User, 'id' | 'hasPassword'>,
  context: RequestContext,
): Promise<boolean> {
  if (account.hasPassword) return true;
  const { connections } = await deps.oauth.listConnections({ userId: account.id }, context);
  return connections.length > 0;
}
