import type { identityV1 } from '@latchkey/contracts';
import type { RequestContext } from '@latchkey/grpc-kit';
import type { OAuthClient, PasskeysClient } from '../service-clients';

/**
 * Has passkeys and oauth remove at once the passkeys and provider links a
 * password reset took back in identity's credential ledger (docs/security.md,
 * "A reset takes back what an intruder added"), so that an intruder's stops
 * working before the reset is answered. Identity queued the job that makes
 * certain of it and mails the notice, and the units' sweeps remove them
 * too: a unit that fails here only delays the removal, and the answer stays
 * a success, since the reset itself is done and the ledger no longer counts
 * them as ways in.
 */
export async function takeBackRecentMethods(
  deps: { readonly passkeys: PasskeysClient; readonly oauth: OAuthClient },
  reset: identityV1.ResetPasswordResponse,
  context: RequestContext,
): Promise<void> {
  const named = { userId: reset.userId, resetId: reset.resetId };
  const outcomes = await Promise.allSettled([deps.passkeys.removeRecentPasskeys(named, context), deps.oauth.removeRecentConnections(named, context)]);
  for (const outcome of outcomes) {
    if (outcome.status === 'rejected') {
      context.logger.warn({ err: outcome.reason as unknown, user_id: reset.userId }, 'could not remove what the reset took back now; the reset job and the sweeps will');
    }
  }
}
