import { AppError } from '@latchkey/errors';
import type { Logger } from '@latchkey/telemetry';
import { providerCredentials, type OAuthConfig } from '../config';
import { GitHubProvider } from './github';
import { GoogleProvider } from './google';
import { providerNames, type OAuthProvider, type ProviderName, type ProviderTransport } from './provider';

/** The configured providers, looked up by name. */
export class ProviderRegistry {
  private readonly byName: ReadonlyMap<ProviderName, OAuthProvider>;

  constructor(providers: readonly OAuthProvider[]) {
    this.byName = new Map(providers.map((provider) => [provider.name, provider]));
  }

  /** Configured providers, in the order of `providerNames`. */
  names(): ProviderName[] {
    return providerNames.filter((name) => this.byName.has(name));
  }

  /** Throws oauth:provider_not_found for a provider this installation has not configured. */
  get(name: ProviderName): OAuthProvider {
    const provider = this.byName.get(name);
    if (!provider) throw new AppError('oauth:provider_not_found');
    return provider;
  }
}

/**
 * Builds the providers whose variables are set. Configuration validation
 * already refused a half-configured provider, and any missing provider in
 * production; what is left off here is off on purpose, in development.
 */
export function createProviderRegistry(config: OAuthConfig, logger: Logger): ProviderRegistry {
  const transport: ProviderTransport = {
    timeoutMs: config.OAUTH_PROVIDER_TIMEOUT_MS,
    allowPlainHttp: config.NODE_ENV !== 'production',
  };
  const providers: OAuthProvider[] = [];
  if (config.GOOGLE_CLIENT_ID && config.GOOGLE_CLIENT_SECRET && config.GOOGLE_REDIRECT_URI) {
    providers.push(
      new GoogleProvider({
        clientId: config.GOOGLE_CLIENT_ID,
        clientSecret: config.GOOGLE_CLIENT_SECRET,
        redirectUri: config.GOOGLE_REDIRECT_URI,
        issuer: config.GOOGLE_ISSUER,
        endpoints: {
          authorization: config.GOOGLE_AUTHORIZATION_URL,
          token: config.GOOGLE_TOKEN_URL,
          userinfo: config.GOOGLE_USERINFO_URL,
          jwks: config.GOOGLE_JWKS_URL,
        },
        transport,
      }),
    );
  }
  if (config.GITHUB_CLIENT_ID && config.GITHUB_CLIENT_SECRET && config.GITHUB_REDIRECT_URI) {
    providers.push(
      new GitHubProvider({
        clientId: config.GITHUB_CLIENT_ID,
        clientSecret: config.GITHUB_CLIENT_SECRET,
        redirectUri: config.GITHUB_REDIRECT_URI,
        authorizationUrl: config.GITHUB_AUTHORIZATION_URL,
        tokenUrl: config.GITHUB_TOKEN_URL,
        apiUrl: config.GITHUB_API_URL,
        transport,
      }),
    );
  }
  const registry = new ProviderRegistry(providers);
  for (const name of providerNames) {
    if (registry.names().includes(name)) continue;
    logger.warn({ provider: name, variables: providerCredentials[name] }, 'provider is off: its variables are not set');
  }
  return registry;
}
