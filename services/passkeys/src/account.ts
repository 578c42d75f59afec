import type { identityV1 } from '@latchkey/contracts';
import type { RequestContext } from '@latchkey/grpc-kit';
import type { PasskeysDeps } from './passkeys-deps';

/** The account from identity.v1; auth:unauthorized when it does not exist. */
export async function getAccount(deps: Pick<PasskeysDeps, 'identity'>, userId: string, context: RequestContext): Promise<identityV1.User> {
  const { user } = await deps.identity.getUser({ userId }, context);
  return user!;
}
