import type { identityV1 } from '@latchkey/contracts';
import type { RequestContext, ServiceClient } from '@latchkey/grpc-kit';

export type IdentityClient = ServiceClient<typeof identityV1.IdentityServiceService>;

/** One way into an account, as identity.v1's ledger names it. */
export interface OwnedMethod {
  readonly userId: string;
  readonly kind: identityV1.SignInMethodKind;
  /** The passkey's id, the provider's name. */
  readonly reference: string;
}

/**
 * Removes a method its unit owns without ever leaving the account with no
 * way in (docs/architecture.md, "Sign-in methods"). Identity begins the
 * removal first: with the account locked it refuses the last way in
 * (passkey:last_login_method, oauth:last_login_method) and marks the method,
 * which from then on counts as gone to any other removal. Then `deleteOwn`
 * deletes the unit's row; it answers whether there was one. Either way the
 * row is gone, so the entry goes too. Should `deleteOwn` fail, the removal
 * is cancelled and the method counts again.
 *
 * A failure to finish or to cancel leaves the method marked: listed, not
 * counted. That errs on the safe side: a later removal is refused sooner,
 * never allowed because of a method that no longer works.
 */
export async function removeOwnedMethod<T>(
  identity: IdentityClient,
  method: OwnedMethod,
  deleteOwn: () => Promise<T>,
  context: RequestContext,
): Promise<T> {
  await identity.beginSignInMethodRemoval(method, context);
  let outcome: T;
  try {
    outcome = await deleteOwn();
  } catch (error) {
    await identity
      .cancelSignInMethodRemoval(method, context)
      .catch((cancelError: unknown) =>
        context.logger.warn({ err: cancelError, user_id: method.userId }, 'could not cancel a sign-in method removal; it stays marked, not counted'),
      );
    throw error;
  }
  await finishRemovals(identity, { userId: method.userId, kind: method.kind, references: [method.reference] }, context);
  return outcome;
}

/**
 * Drops from the ledger methods the unit deleted. A failure is logged, not
 * raised: the methods are gone whatever the ledger says, and an entry left
 * marked counts for nothing.
 */
export async function finishRemovals(
  identity: IdentityClient,
  removed: { readonly userId: string; readonly kind: identityV1.SignInMethodKind; readonly references: readonly string[] },
  context: RequestContext,
): Promise<void> {
  await identity
    .finishSignInMethodRemovals({ ...removed, references: [...removed.references] }, context)
    .catch((error: unknown) => context.logger.warn({ err: error, user_id: removed.userId }, 'could not drop removed sign-in methods from the ledger'));
}
