import type * as OidcProvider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';

type ProviderModule = typeof OidcProvider;

let loaded: ProviderModule | undefined;

/**
 * oidc-provider is an ES module; the gateway loads it only when the
 * provider is enabled (Node 20.19+ and 22 load it through require), so that
 * an installation without it, and the tests that build the gateway in
 * process, never do.
 */
export async function loadProviderModule(): Promise<ProviderModule> {
  loaded ??= await import('oidc-provider');
  return loaded;
}

/** The provider request being served on this async path (oidc-provider keeps it in AsyncLocalStorage). */
export function currentProviderContext(): KoaContextWithOIDC | undefined {
  return loaded?.default.ctx;
}

/** The token endpoint's answer to a used code or refresh token presented again. */
export function sourceReused(kind: string): Error {
  if (!loaded) throw new Error('the provider is not loaded');
  const label = kind === 'RefreshToken' ? 'refresh token' : kind === 'DeviceCode' ? 'device code' : 'authorization code';
  return new loaded.errors.InvalidGrant(`${label} already used`);
}
