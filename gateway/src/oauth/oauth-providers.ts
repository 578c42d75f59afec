import { oauthV1 } from '@latchkey/contracts';
import { AppError } from '@latchkey/errors';

/** The `{provider}` path segments (docs/api.md, "Sign-in with a provider (OAuth)") and their proto values. */
const byName = new Map<string, oauthV1.Provider>([
  ['google', oauthV1.Provider.PROVIDER_GOOGLE],
  ['github', oauthV1.Provider.PROVIDER_GITHUB],
]);

const byValue = new Map([...byName].map(([name, value]) => [value, name]));

/** Anything but an implemented provider's name is `oauth:provider_not_found`, as an unknown resource would be. */
export function providerFromPath(name: string): oauthV1.Provider {
  const provider = byName.get(name);
  if (provider === undefined) throw new AppError('oauth:provider_not_found');
  return provider;
}

export function providerName(provider: oauthV1.Provider): string {
  return byValue.get(provider) ?? 'unknown';
}
