import type { identityV1 } from '@latchkey/contracts';
import type { RequestContext } from '@latchkey/grpc-kit';
import type { OAuthClient, PasskeysClient } from '../service-clients';

/**
 * Removes at once the passkeys and provider links a password reset takes
 * back (docs/security.md, "A reset takes back what an intruder added"), so
 * that an intruder's stops working before the reset is answered. Identity
 * queued the job that makes certain of it and mails the notice: a unit
 * that fails here only delays the removal until that job runs, and the
 * answer stays a success, since the reset itself is done.
 */
export async function takeBackRecentMethods(
  deps: { readonly passkeys: PasskeysClient; readonly oauth: OAuthClient },
  reset: identityV1.ResetPasswordResponse,
  context: RequestContext,
): Promise<void> {
  const window = { userId: reset.userId, resetId: reset.resetId, addedAfter: reset.methodsAddedAfter, addedBefore: reset.resetAt };
  const outcomes = await Promise.allSettled([deps.passkeys.removeRecentPasskeys(window, context), deps.oauth.removeRecentConnections(window, context)]);
  for (const outcome of outcomes) {
    if (outcome.status === 'rejected') {
      context.logger.warn({ err: outcome.reason as unknown, user_id: reset.userId }, 'could not take back recent sign-in methods now; the reset job will');
    }
  }
}
