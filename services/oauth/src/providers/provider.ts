import * as client from 'openid-client';
import { AppError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import { requestBoundFetch } from './request-bound-fetch';

/** The implemented providers, by the lower-case names used in API paths and stored rows. */
export const providerNames = ['google', 'github'] as const;

export type ProviderName = (typeof providerNames)[number];

/** Who the provider says the user is, read from a validated response. */
export interface ProviderIdentity {
  /** The provider's stable id: Google's `sub`, GitHub's numeric user id. */
  readonly providerUserId: string;
  /** Trimmed and lower-cased; undefined when the provider gave none. */
  readonly email: string | undefined;
  /** Whether the provider vouches that the user controls `email`. */
  readonly emailVerified: boolean;
  /** Display name; empty when the provider gave none. */
  readonly name: string;
  /** Avatar URL; empty when the provider gave none. */
  readonly avatarUrl: string;
}

/** The per-authorization secrets kept server-side with the state. */
export interface AuthorizationSecrets {
  readonly state: string;
  /** RFC 7636 §4.1 code verifier; only its S256 challenge leaves this service. */
  readonly codeVerifier: string;
  /** OpenID Connect Core §3.1.2.1 nonce, echoed in the id_token (unused by plain OAuth 2.0). */
  readonly nonce: string;
}

/** What the user brought back from the provider, with the secrets of its state. */
export interface AuthorizationGrant extends AuthorizationSecrets {
  readonly code: string;
}

/** One identity provider, behind the same two calls for every provider. */
export interface OAuthProvider {
  readonly name: ProviderName;
  /** The consent URL; throws oauth:provider_unavailable when the provider's metadata cannot be read. */
  createAuthorizationUrl(secrets: AuthorizationSecrets, context: RequestContext): Promise<URL>;
  /**
   * Exchanges the code and reads the identity. Throws oauth:code_invalid when
   * the provider refuses the code, oauth:provider_unavailable when it fails,
   * times out or answers something that does not validate.
   */
  exchangeCode(grant: AuthorizationGrant, context: RequestContext): Promise<ProviderIdentity>;
}

/** Timeout and transport settings shared by the provider clients. */
export interface ProviderTransport {
  readonly timeoutMs: number;
  /**
   * Lets openid-client talk plain HTTP. Only set outside production (docs/api.md,
   * "Configuration"), where tests and local stacks run providers on loopback ports.
   */
  readonly allowPlainHttp: boolean;
}

/**
 * Applies the shared transport settings to an openid-client configuration:
 * its timeout, and a fetch that also stops with the request it works for.
 */
export function applyTransport(
  configuration: client.Configuration,
  transport: ProviderTransport,
  fetchImplementation?: client.CustomFetch,
): void {
  // openid-client counts its per-request timeout in seconds.
  configuration.timeout = transport.timeoutMs / 1000;
  configuration[client.customFetch] = requestBoundFetch(fetchImplementation);
  // Deprecated only as a warning sign in openid-client; it is what lets loopback test providers work.
  if (transport.allowPlainHttp) client.allowInsecureRequests(configuration);
}

/**
 * Token endpoint errors (RFC 6749 §5.2) that mean the code, its PKCE
 * verifier or its redirect URI does not fit: the user's code is refused.
 * Client authentication errors are not among them: those are our
 * misconfiguration, not the user's code.
 */
const refusedCodeErrors = new Set(['invalid_grant', 'invalid_request', 'bad_verification_code', 'redirect_uri_mismatch']);

/** Turns the token endpoint's refusal of the code into oauth:code_invalid; anything else passes through. */
export function refusedCode(error: unknown): never {
  if (error instanceof client.ResponseBodyError && refusedCodeErrors.has(error.error)) {
    throw new AppError('oauth:code_invalid', undefined, { cause: error });
  }
  throw error;
}

/**
 * The one translation of a failed provider call: our own errors pass, the
 * rest become oauth:provider_unavailable. Only the error's kind is logged,
 * never a response body, which could hold tokens.
 */
export function providerFailure(provider: ProviderName, error: unknown, context: RequestContext): AppError {
  if (error instanceof AppError) return error;
  context.logger.warn({ provider, failure: describeFailure(error) }, 'identity provider call failed');
  return new AppError('oauth:provider_unavailable', undefined, { cause: error });
}

interface FailureDescription {
  name: string;
  message: string;
  code?: string;
  status?: number;
  oauthError?: string;
  cause?: FailureDescription;
}

/**
 * Read by shape rather than `instanceof Error`: fetch's errors may come from
 * another realm (undici's own globals), and they still have a name and a message.
 */
function describeFailure(error: unknown, depth = 0): FailureDescription {
  const { name, message, code, status, cause } = (typeof error === 'object' && error !== null ? error : {}) as Record<
    string,
    unknown
  >;
  const description: FailureDescription = {
    name: typeof name === 'string' ? name : typeof error,
    message: typeof message === 'string' ? message : '',
  };
  if (typeof code === 'string') description.code = code;
  if (typeof status === 'number') description.status = status;
  if (error instanceof client.ResponseBodyError) description.oauthError = error.error;
  if (typeof cause === 'object' && cause !== null && depth < 3) description.cause = describeFailure(cause, depth + 1);
  return description;
}

/** The URL the provider redirected the user to, rebuilt from the parts the caller passed on. */
export function callbackUrl(redirectUri: string, grant: AuthorizationGrant): URL {
  const url = new URL(redirectUri);
  url.searchParams.set('code', grant.code);
  url.searchParams.set('state', grant.state);
  return url;
}

export { normalizeEmail } from '@latchkey/account-fields';
