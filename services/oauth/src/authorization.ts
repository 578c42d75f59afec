import type { RequestContext } from '@latchkey/grpc-kit';
import type { OAuthDeps } from './oauth-deps';
import type { StateBinding } from './oauth-state';
import type { ProviderIdentity } from './providers/provider';

export interface StartedAuthorization {
  readonly url: URL;
  readonly state: string;
  readonly expiresAt: Date;
}

/** Stores a state bound to the provider, purpose and user, and builds the consent URL that carries it. */
export async function beginAuthorization(
  deps: OAuthDeps,
  binding: StateBinding,
  context: RequestContext,
): Promise<StartedAuthorization> {
  const provider = deps.providers.get(binding.provider);
  const { secrets, expiresAt } = await deps.states.issue(binding, deps.now());
  const url = await provider.createAuthorizationUrl(secrets, context);
  return { url, state: secrets.state, expiresAt };
}

/**
 * Uses the state up, then exchanges the code with the secrets stored with
 * it. The state goes first: a code that comes with a state that does not
 * fit is never sent to the provider.
 */
export async function redeemAuthorization(
  deps: OAuthDeps,
  binding: StateBinding,
  response: { code: string; state: string },
  context: RequestContext,
): Promise<ProviderIdentity> {
  const provider = deps.providers.get(binding.provider);
  const secrets = await deps.states.redeem(response.state, binding);
  return provider.exchangeCode({ ...secrets, code: response.code }, context);
}
