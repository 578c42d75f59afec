import {
  startGitHubProvider,
  startOidcProvider,
  type GitHubAccount,
  type OidcClaims,
  type ProviderFixture,
} from '../../services/oauth/test/provider-fixtures';

/** The OAuth clients the provider fixtures accept, registered as the oauth service's configuration says. */
export const TEST_OAUTH_CLIENTS = {
  google: { id: 'e2e-google-client', secret: 'e2e-google-secret' },
  github: { id: 'e2e-github-client', secret: 'e2e-github-secret' },
} as const;

export type GoogleFixture = ProviderFixture<{ idToken: OidcClaims; userinfo?: OidcClaims }>;
export type GitHubFixture = ProviderFixture<GitHubAccount>;

export const startGoogleFixture = (): Promise<GoogleFixture> => startOidcProvider();
export const startGitHubFixture = (): Promise<GitHubFixture> =>
  startGitHubProvider(TEST_OAUTH_CLIENTS.github.id, TEST_OAUTH_CLIENTS.github.secret);

/**
 * The oauth service's variables that turn on the given fixtures, each
 * provider's redirect URI the app's callback page under `appUrl`
 * (docs/api.md, "Sign-in with a provider (OAuth)").
 */
export function providerEnvironment(appUrl: string, fixtures: { google?: GoogleFixture; github?: GitHubFixture }): Record<string, string> {
  const { google, github } = fixtures;
  return {
    ...(google && {
      GOOGLE_CLIENT_ID: TEST_OAUTH_CLIENTS.google.id,
      GOOGLE_CLIENT_SECRET: TEST_OAUTH_CLIENTS.google.secret,
      GOOGLE_REDIRECT_URI: `${appUrl}/oauth/google/callback`,
      GOOGLE_ISSUER: google.url,
    }),
    ...(github && {
      GITHUB_CLIENT_ID: TEST_OAUTH_CLIENTS.github.id,
      GITHUB_CLIENT_SECRET: TEST_OAUTH_CLIENTS.github.secret,
      GITHUB_REDIRECT_URI: `${appUrl}/oauth/github/callback`,
      GITHUB_AUTHORIZATION_URL: `${github.url}/login/oauth/authorize`,
      GITHUB_TOKEN_URL: `${github.url}/login/oauth/access_token`,
      GITHUB_API_URL: github.url,
    }),
  };
}
