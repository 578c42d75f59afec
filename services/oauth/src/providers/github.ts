import * as client from 'openid-client';
import { z } from 'zod';
import type { RequestContext } from '@latchkey/grpc-kit';
import { boundToRequest } from './request-bound-fetch';
import {
  applyTransport,
  callbackUrl,
  normalizeEmail,
  providerFailure,
  refusedCode,
  type AuthorizationGrant,
  type AuthorizationSecrets,
  type OAuthProvider,
  type ProviderIdentity,
  type ProviderTransport,
} from './provider';

export interface GitHubSettings {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly redirectUri: string;
  readonly authorizationUrl: string;
  readonly tokenUrl: string;
  /** The REST API root, e.g. https://api.github.com. */
  readonly apiUrl: string;
  readonly transport: ProviderTransport;
}

/** `read:user` for the profile, `user:email` for /user/emails and its verified flags. */
const SCOPE = 'read:user user:email';

/** https://docs.github.com/en/rest/users/users#get-the-authenticated-user (the fields we read). */
const userSchema = z.object({
  id: z.number().int(),
  login: z.string().min(1),
  name: z.string().nullish(),
  avatar_url: z.string().nullish(),
});

/** https://docs.github.com/en/rest/users/emails#list-email-addresses-for-the-authenticated-user */
const emailsSchema = z.array(z.object({ email: z.string().min(1), primary: z.boolean(), verified: z.boolean() }));

export type GitHubEmails = z.infer<typeof emailsSchema>;

/**
 * The address GitHub vouches for: the primary one, and only when verified.
 * /user's `email` is the public address (or null when private) and says
 * nothing about verification, so it is not used.
 */
export function chooseEmail(emails: GitHubEmails): { email: string | undefined; verified: boolean } {
  const primary = emails.find((entry) => entry.primary);
  if (!primary) return { email: undefined, verified: false };
  return { email: normalizeEmail(primary.email), verified: primary.verified };
}

/**
 * GitHub through plain OAuth 2.0 (it has no OpenID Connect for users):
 * explicit server metadata instead of discovery, PKCE (S256, RFC 7636),
 * which GitHub supports, and the REST API for the identity.
 */
export class GitHubProvider implements OAuthProvider {
  readonly name = 'github';
  private readonly configuration: client.Configuration;
  private readonly apiRoot: URL;

  constructor(private readonly settings: GitHubSettings) {
    this.configuration = new client.Configuration(
      {
        // Only id_tokens are checked against an issuer, and GitHub issues none.
        issuer: new URL(settings.authorizationUrl).origin,
        authorization_endpoint: settings.authorizationUrl,
        token_endpoint: settings.tokenUrl,
      },
      settings.clientId,
      settings.clientSecret,
      client.ClientSecretPost(settings.clientSecret),
    );
    applyTransport(this.configuration, settings.transport, tokenErrorsAsRfc6749(new URL(settings.tokenUrl).href));
    this.apiRoot = new URL(settings.apiUrl.endsWith('/') ? settings.apiUrl : `${settings.apiUrl}/`);
  }

  async createAuthorizationUrl(secrets: AuthorizationSecrets): Promise<URL> {
    // Nothing to fetch: GitHub's endpoints are configured, so this cannot meet a provider failure.
    return client.buildAuthorizationUrl(this.configuration, {
      redirect_uri: this.settings.redirectUri,
      scope: SCOPE,
      state: secrets.state,
      code_challenge: await client.calculatePKCECodeChallenge(secrets.codeVerifier),
      code_challenge_method: 'S256',
    });
  }

  async exchangeCode(grant: AuthorizationGrant, context: RequestContext): Promise<ProviderIdentity> {
    return boundToRequest(context.signal, () => this.identify(grant, context));
  }

  private async identify(grant: AuthorizationGrant, context: RequestContext): Promise<ProviderIdentity> {
    try {
      const tokens = await client
        .authorizationCodeGrant(this.configuration, callbackUrl(this.settings.redirectUri, grant), {
          pkceCodeVerifier: grant.codeVerifier,
          expectedState: grant.state,
        })
        .catch(refusedCode);
      const [user, emails] = await Promise.all([
        this.getJson('user', tokens.access_token, userSchema),
        this.getJson('user/emails', tokens.access_token, emailsSchema),
      ]);
      const { email, verified } = chooseEmail(emails);
      return {
        providerUserId: String(user.id),
        email,
        emailVerified: verified,
        name: user.name ?? user.login,
        avatarUrl: user.avatar_url ?? '',
      };
    } catch (error) {
      throw providerFailure(this.name, error, context);
    }
  }

  /** A REST call under the provider timeout; a non-2xx status or an unexpected body throws. */
  private async getJson<T>(path: string, accessToken: string, schema: z.ZodType<T>): Promise<T> {
    const headers = new Headers({
      accept: 'application/vnd.github+json',
      'x-github-api-version': '2022-11-28',
    });
    const response = await client.fetchProtectedResource(
      this.configuration,
      accessToken,
      new URL(path, this.apiRoot),
      'GET',
      undefined,
      headers,
    );
    if (!response.ok) throw new Error(`GitHub API ${path} answered ${response.status}`);
    return schema.parse(await response.json());
  }
}

/**
 * GitHub answers a refused code with status 200 and an `error` field in the
 * body. RFC 6749 §5.2 says 400, which is what openid-client expects: the
 * answer is rewritten so that it is read as the refusal it is.
 */
function tokenErrorsAsRfc6749(tokenUrl: string): client.CustomFetch {
  return async (url, options) => {
    const response = await fetch(url, options);
    if (url !== tokenUrl || response.status !== 200) return response;
    const body: unknown = await response
      .clone()
      .json()
      .catch(() => undefined);
    if (typeof body !== 'object' || body === null || !('error' in body) || typeof body.error !== 'string') return response;
    return new Response(JSON.stringify(body), { status: 400, headers: { 'content-type': 'application/json' } });
  };
}
