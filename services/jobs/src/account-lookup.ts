import type { identityV1 } from '@latchkey/contracts';
import { AppError } from '@latchkey/errors';
import type { RequestContext, ServiceClient } from '@latchkey/grpc-kit';

/** The account as identity has it now, or undefined once it is deleted (identity answers auth:unauthorized). */
export async function findAccount(
  identity: ServiceClient<typeof identityV1.IdentityServiceService>,
  userId: string,
  context: RequestContext,
): Promise<identityV1.User | undefined> {
  try {
    return (await identity.getUser({ userId }, context)).user;
  } catch (error) {
    if (error instanceof AppError && error.code === 'auth:unauthorized') return undefined;
    throw error;
  }
}
