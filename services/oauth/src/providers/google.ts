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

export interface GoogleSettings {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly redirectUri: string;
  /** GOOGLE_ISSUER: the discovery document is read from here, lazily, once. */
  readonly issuer: string;
  /** GOOGLE_*_URL: each wins over the discovered value. */
  readonly endpoints: {
    readonly authorization?: string | undefined;
    readonly token?: string | undefined;
    readonly userinfo?: string | undefined;
    readonly jwks?: string | undefined;
  };
  readonly transport: ProviderTransport;
}

/** `openid` for the id_token, `email` and `profile` for the claims we read. */
const SCOPE = 'openid email profile';

/**
 * The claims we read. Google has sent `email_verified` both as a boolean and
 * as the string "true", so both are accepted.
 */
const claimsSchema = z.object({
  sub: z.string().min(1),
  email: z.string().min(1).optional(),
  email_verified: z.union([z.boolean(), z.enum(['true', 'false'])]).optional(),
  name: z.string().optional(),
  picture: z.string().optional(),
});

type GoogleClaims = z.infer<typeof claimsSchema>;

/**
 * Google through OpenID Connect: authorization code flow with PKCE (S256,
 * RFC 7636) and a nonce (OpenID Connect Core §3.1.2.1). The id_token is
 * validated by openid-client (issuer, audience, expiry, nonce) and its
 * signature is checked against the issuer's JWKS as well, which TLS alone
 * would vouch for in production but not over a plain-HTTP test provider or
 * an overridden token endpoint.
 */
export class GoogleProvider implements OAuthProvider {
  readonly name = 'google';
  private configuration: Promise<client.Configuration> | undefined;

  constructor(private readonly settings: GoogleSettings) {}

  async createAuthorizationUrl(secrets: AuthorizationSecrets, context: RequestContext): Promise<URL> {
    const configuration = await this.configure().catch((error: unknown) => {
      throw providerFailure(this.name, error, context);
    });
    return client.buildAuthorizationUrl(configuration, {
      redirect_uri: this.settings.redirectUri,
      scope: SCOPE,
      state: secrets.state,
      nonce: secrets.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(secrets.codeVerifier),
      code_challenge_method: 'S256',
      // Users with several Google accounts choose one instead of being signed in silently.
      prompt: 'select_account',
    });
  }

  async exchangeCode(grant: AuthorizationGrant, context: RequestContext): Promise<ProviderIdentity> {
    return boundToRequest(context.signal, () => this.identify(grant, context));
  }

  private async identify(grant: AuthorizationGrant, context: RequestContext): Promise<ProviderIdentity> {
    try {
      const configuration = await this.configure();
      const tokens = await client
        .authorizationCodeGrant(configuration, callbackUrl(this.settings.redirectUri, grant), {
          pkceCodeVerifier: grant.codeVerifier,
          expectedNonce: grant.nonce,
          expectedState: grant.state,
          idTokenExpected: true,
        })
        .catch(refusedCode);
      const claims = claimsSchema.parse(tokens.claims());
      return toIdentity(await this.completeClaims(configuration, tokens.access_token, claims));
    } catch (error) {
      throw providerFailure(this.name, error, context);
    }
  }

  /** Userinfo only when the id_token lacks a claim we read (OpenID Connect Core §5.3). */
  private async completeClaims(
    configuration: client.Configuration,
    accessToken: string,
    claims: GoogleClaims,
  ): Promise<GoogleClaims> {
    const complete =
      claims.email !== undefined &&
      claims.email_verified !== undefined &&
      claims.name !== undefined &&
      claims.picture !== undefined;
    if (complete) return claims;
    // The expected subject makes openid-client refuse userinfo about someone else (§5.3.2).
    const userinfo = claimsSchema.parse(await client.fetchUserInfo(configuration, accessToken, claims.sub));
    return {
      sub: claims.sub,
      email: claims.email ?? userinfo.email,
      email_verified: claims.email_verified ?? userinfo.email_verified,
      name: claims.name ?? userinfo.name,
      picture: claims.picture ?? userinfo.picture,
    };
  }

  /** Discovery runs at the first use and is kept; a failed attempt is forgotten so that the next call retries. */
  private configure(): Promise<client.Configuration> {
    this.configuration ??= this.discover().catch((error: unknown) => {
      this.configuration = undefined;
      throw error;
    });
    return this.configuration;
  }

  private async discover(): Promise<client.Configuration> {
    const { endpoints, transport } = this.settings;
    const overrides: Partial<client.ServerMetadata> = {
      ...(endpoints.authorization ? { authorization_endpoint: endpoints.authorization } : {}),
      ...(endpoints.token ? { token_endpoint: endpoints.token } : {}),
      ...(endpoints.userinfo ? { userinfo_endpoint: endpoints.userinfo } : {}),
      ...(endpoints.jwks ? { jwks_uri: endpoints.jwks } : {}),
    };

    let discovered: client.ServerMetadata = { issuer: this.settings.issuer };
    // With every endpoint we need given, the discovery document has nothing left to tell.
    if (!(endpoints.authorization && endpoints.token && endpoints.jwks)) {
      const found = await client.discovery(new URL(this.settings.issuer), this.settings.clientId, undefined, undefined, {
        timeout: transport.timeoutMs / 1000,
        execute: transport.allowPlainHttp ? [client.allowInsecureRequests] : [],
      });
      discovered = { ...found.serverMetadata() };
    }
    const metadata: client.ServerMetadata = {
      ...discovered,
      ...overrides,
      // RFC 9207's `iss` response parameter defends against mix-ups between
      // providers; our state is bound to one provider server-side, which is
      // the same defence, and the caller passes on only `code` and `state`.
      authorization_response_iss_parameter_supported: false,
    };
    const configuration = new client.Configuration(
      metadata,
      this.settings.clientId,
      this.settings.clientSecret,
      client.ClientSecretPost(this.settings.clientSecret),
    );
    applyTransport(configuration, transport);
    client.enableNonRepudiationChecks(configuration);
    return configuration;
  }
}

/** Missing `email` means Google answered outside its contract for the `email` scope. */
function toIdentity(claims: GoogleClaims): ProviderIdentity {
  if (claims.email === undefined) throw new Error("Missing 'email' claim in id_token and userinfo");
  return {
    providerUserId: claims.sub,
    email: normalizeEmail(claims.email),
    emailVerified: claims.email_verified === true || claims.email_verified === 'true',
    name: claims.name ?? '',
    avatarUrl: claims.picture ?? '',
  };
}
