import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import * as client from 'openid-client';
import { z } from 'zod';
import { normalizeEmail } from '@latchkey/account-fields';
import { refusedAddressReason } from '@latchkey/egress-guard';
import { AppError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import { generateOpaqueToken } from '@latchkey/opaque-token';
import { applyTransport } from '../providers/provider';
import { boundToRequest } from '../providers/request-bound-fetch';
import { serviceProviderUrls } from './service-provider-urls';
import type { SsoConnection } from './sso-connection-store';
import type { SsoDeps } from './sso-deps';
import { connectionSecretContext } from './sso-key-purpose';
import { mappedValues, type FederatedPerson } from './federated-person';

type OidcConnection = SsoConnection & { type: 'oidc' };

const SCOPE = 'openid email profile';

/** The claims read; `email_verified` comes as a boolean or, from some IdPs, the string "true". */
const claimsSchema = z.looseObject({
  sub: z.string().min(1),
  email_verified: z.union([z.boolean(), z.enum(['true', 'false'])]).optional(),
});

/** An issuer host that resolves inside: refused, so that an organisation's administrator cannot make this unit fetch from the cluster. */
class PrivateIssuerError extends Error {
  override readonly name = 'PrivateIssuerError';
}

/**
 * fetch that refuses hosts resolving to loopback, private, link-local or
 * metadata addresses (packages/egress-guard's list) unless
 * SSO_ALLOW_PRIVATE_ISSUERS: an issuer is typed by an organisation's
 * administrator, not by the operator. Every address of the name is checked,
 * for discovery, the JWKS, the token and the userinfo endpoints alike.
 */
function guardedFetch(allowPrivate: boolean): client.CustomFetch {
  return async (url, options) => {
    if (!allowPrivate) {
      const hostname = new URL(url).hostname.replace(/^\[|\]$/g, '');
      const addresses = isIP(hostname) ? [hostname] : (await lookup(hostname, { all: true })).map((entry) => entry.address);
      for (const address of addresses) {
        const reason = refusedAddressReason(address);
        if (reason) throw new PrivateIssuerError(`${hostname} resolves to a ${reason} address`);
      }
    }
    return fetch(url, options);
  };
}

function clientSecretOf(deps: SsoDeps, connection: OidcConnection): string {
  return deps.secretBox.open(connection.oidc.sealedClientSecret, connectionSecretContext(connection.id, 'oidc-client-secret')).toString('utf8');
}

/**
 * The provider's configuration from its discovery document, read for each
 * sign-in: connections are many and change at their administrators' will,
 * and a sign-in is rare enough per connection for the extra request.
 */
async function configurationOf(deps: SsoDeps, connection: OidcConnection): Promise<client.Configuration> {
  const secret = clientSecretOf(deps, connection);
  const plainHttp = !deps.production;
  const found = await client.discovery(new URL(connection.oidc.issuer), connection.oidc.clientId, undefined, client.ClientSecretPost(secret), {
    timeout: deps.providerTimeoutMs / 1000,
    execute: plainHttp ? [client.allowInsecureRequests] : [],
    [client.customFetch]: guardedFetch(deps.allowPrivateIssuers),
  });
  applyTransport(found, { timeoutMs: deps.providerTimeoutMs, allowPlainHttp: plainHttp }, guardedFetch(deps.allowPrivateIssuers));
  return found;
}

/** OpenID Connect failures that are the provider's or the network's, not the person's. */
function providerProblem(error: unknown, connectionId: string, context: RequestContext): AppError {
  if (error instanceof AppError) return error;
  // The kind and message only: a response body could hold tokens.
  const failure = error instanceof Error ? { name: error.name, message: error.message } : { name: typeof error };
  context.logger.warn({ connection_id: connectionId, failure }, 'OpenID Connect identity provider call failed');
  return new AppError('oauth:provider_unavailable', undefined, { cause: error });
}

/** An authorization request with PKCE (S256) and a nonce, its state bound to this browser. */
export async function startOidcSignIn(
  deps: SsoDeps,
  connection: OidcConnection,
  started: { browserBinding: string; returnTo: string },
  context: RequestContext,
): Promise<{ url: string; expiresAt: Date }> {
  const state = generateOpaqueToken();
  const codeVerifier = client.randomPKCECodeVerifier();
  const nonce = client.randomNonce();
  let configuration: client.Configuration;
  try {
    configuration = await configurationOf(deps, connection);
  } catch (error) {
    throw providerProblem(error, connection.id, context);
  }
  await deps.requests.remember('oidc', state, { connectionId: connection.id, browserBinding: started.browserBinding, codeVerifier, nonce, returnTo: started.returnTo });
  const url = client.buildAuthorizationUrl(configuration, {
    redirect_uri: serviceProviderUrls(deps.publicUrl, connection.id).redirectUri,
    scope: SCOPE,
    state,
    nonce,
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
  });
  return { url: url.href, expiresAt: new Date(deps.now() + deps.requestTtlSeconds * 1000) };
}

/**
 * Uses up the state (this connection's, this browser's), exchanges the code
 * with the PKCE verifier, and validates the ID token: issuer, audience,
 * expiry, nonce (openid-client). A refused state or code is
 * sso:response_invalid; an unreachable provider oauth:provider_unavailable.
 */
export async function completeOidcSignIn(
  deps: SsoDeps,
  connection: OidcConnection,
  input: { code: string; state: string; browserBinding: string },
  context: RequestContext,
): Promise<{ person: FederatedPerson; returnTo: string }> {
  const request = await deps.requests.redeem('oidc', input.state, { connectionId: connection.id, browserBinding: input.browserBinding });
  if (!request?.codeVerifier || !request.nonce) throw new AppError('sso:response_invalid', 'The sign-in request is unknown, used, expired or another browser’s.');
  const { codeVerifier, nonce } = request;
  const returnTo = request.returnTo ?? '';
  return boundToRequest(context.signal, async () => {
    let claims: Record<string, unknown>;
    try {
      const configuration = await configurationOf(deps, connection);
      const callback = new URL(serviceProviderUrls(deps.publicUrl, connection.id).redirectUri);
      callback.searchParams.set('code', input.code);
      callback.searchParams.set('state', input.state);
      const tokens = await client
        .authorizationCodeGrant(configuration, callback, { pkceCodeVerifier: codeVerifier, expectedNonce: nonce, expectedState: input.state, idTokenExpected: true })
        .catch((error: unknown) => {
          if (error instanceof client.ResponseBodyError && error.error === 'invalid_grant') {
            throw new AppError('sso:response_invalid', 'The identity provider refused the authorization code.', { cause: error });
          }
          throw error;
        });
      const idClaims: Record<string, unknown> = { ...tokens.claims() };
      const subject = typeof idClaims.sub === 'string' ? idClaims.sub : '';
      // Userinfo adds what the ID token left out (groups, often); the expected subject makes openid-client refuse someone else's (§5.3.2).
      const userinfo = subject !== '' ? await client.fetchUserInfo(configuration, tokens.access_token, subject) : {};
      claims = { ...userinfo, ...idClaims };
    } catch (error) {
      throw providerProblem(error, connection.id, context);
    }
    return { person: personOfClaims(claims, connection), returnTo };
  });
}

function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** The person of an ID token's (and userinfo's) claims, through the connection's mapping. */
export function personOfClaims(claims: Record<string, unknown>, connection: OidcConnection): FederatedPerson {
  const parsed = claimsSchema.safeParse(claims);
  if (!parsed.success) throw new AppError('sso:response_invalid', 'The ID token names no subject.');
  const values = new Map(Object.entries(claims).map(([name, value]) => [name, stringsOf(value)]));
  const mapping = connection.attributeMapping;
  const email = mappedValues(values, mapping.email, ['email'])[0] ?? '';
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new AppError('sso:response_invalid', 'The identity provider sent no email address.');
  return {
    subject: parsed.data.sub,
    email: normalizeEmail(email),
    emailVerified: parsed.data.email_verified === true || parsed.data.email_verified === 'true',
    name: mappedValues(values, mapping.name, ['name'])[0] ?? '',
    groups: mappedValues(values, mapping.groups, ['groups']),
  };
}
