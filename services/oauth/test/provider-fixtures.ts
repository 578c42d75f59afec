import path from 'node:path';
import { startProcess, type ManagedProcess } from '@latchkey/test-kit';

/** Claims an OpenID Connect provider puts in an id_token or a userinfo answer. */
export interface OidcClaims {
  sub: string;
  email?: string;
  email_verified?: boolean | string;
  name?: string;
  picture?: string;
}

/** A GitHub account as /user and /user/emails show it. */
export interface GitHubAccount {
  user: { id: number; login: string; name: string | null; email: string | null; avatar_url: string };
  emails: { email: string; primary: boolean; verified: boolean; visibility: 'public' | 'private' | null }[];
}

export type FailureMode = 'garbage' | 'slow' | 'reset' | 'bad_signature';

/** One provider process started from test/fixtures, and its control endpoints. */
export interface ProviderFixture<Login> {
  readonly url: string;
  readonly process: ManagedProcess;
  /** Who signs in at the next authorization. */
  nextLogin(login: Login): Promise<void>;
  /** Makes one endpoint fail until `heal()`. */
  fail(endpoint: string, mode: FailureMode, delayMs?: number): Promise<void>;
  heal(): Promise<void>;
  stop(): Promise<void>;
}

const fixtures = path.join(__dirname, 'fixtures');

async function startFixture<Login>(name: string, script: string, args: string[]): Promise<ProviderFixture<Login>> {
  const child = startProcess(name, process.execPath, [path.join(fixtures, script), ...args], {
    cwd: path.resolve(__dirname, '..'),
    env: { ...process.env },
  });
  const line = await child.waitForOutput(/^\{"url":"[^"]+"\}$/m);
  const { url } = JSON.parse(line) as { url: string };
  const put = async (pathname: string, body: unknown): Promise<void> => {
    const response = await fetch(new URL(pathname, url), {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status !== 204) throw new Error(`${name} control ${pathname} answered ${response.status}`);
  };
  return {
    url,
    process: child,
    nextLogin: (login) => put('/__control/next-login', login),
    fail: (endpoint, mode, delayMs) => put('/__control/failure', { endpoint, mode, delayMs }),
    heal: () => put('/__control/failure', null),
    async stop() {
      await child.stop(5_000);
    },
  };
}

/** oauth2-mock-server in a process of its own: a real OpenID Connect provider. */
export function startOidcProvider(): Promise<ProviderFixture<{ idToken: OidcClaims; userinfo?: OidcClaims }>> {
  return startFixture('oidc', 'oidc-provider.mjs', []);
}

/** A GitHub-compatible OAuth 2.0 provider and REST API in a process of its own. */
export function startGitHubProvider(clientId: string, clientSecret: string): Promise<ProviderFixture<GitHubAccount>> {
  return startFixture('github', 'github-provider.mjs', [clientId, clientSecret]);
}

/**
 * Plays the user's browser at the consent screen: follows the authorization
 * URL to the provider, which redirects to our redirect URI with the code
 * and the state, and returns those two.
 */
export async function followAuthorization(authorizationUrl: string): Promise<{ code: string; state: string }> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (response.status !== 302 || !location) throw new Error(`the provider answered ${response.status} without a redirect`);
  const callback = new URL(location);
  const code = callback.searchParams.get('code');
  const state = callback.searchParams.get('state');
  if (!code || !state) throw new Error(`no code or state in the redirect to ${callback.origin}${callback.pathname}`);
  return { code, state };
}
