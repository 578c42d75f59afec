import { AppError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import { validateSamlResponse, startSamlSignIn } from './saml-sign-in';
import { completeOidcSignIn, startOidcSignIn } from './oidc-sign-in';
import { findSsoConnection, linkSsoSubject, listSsoConnections, type SsoConnection } from './sso-connection-store';
import type { SsoDeps } from './sso-deps';
import { personOfSamlAssertion, roleOf, type FederatedPerson } from './federated-person';

export interface SignedIn {
  readonly userId: string;
  readonly organizationId: string;
  readonly connectionId: string;
  readonly createdAccount: boolean;
  readonly role: string;
  /** Where the sign-in was going in the web app, as its start said; empty: the home page. */
  readonly returnTo: string;
}

/**
 * The account side of a valid answer: identity finds or creates the account
 * and the membership, and lists the connection in the credential ledger, in
 * one transaction (it refuses an email outside the organisation's verified
 * domains with sso:domain_mismatch); then this unit links the outside
 * subject to the account, as it does for Google.
 */
export async function signInFederatedPerson(
  deps: SsoDeps,
  connection: SsoConnection,
  person: FederatedPerson,
  returnTo: string,
  context: RequestContext,
): Promise<SignedIn> {
  const { role, fromGroups } = roleOf(person.groups, connection.groupRoles, connection.defaultRole);
  const provisioned = await deps.identity.provisionSsoMember(
    {
      organizationId: connection.organizationId,
      connectionId: connection.id,
      email: person.email,
      emailVerified: person.emailVerified,
      displayName: person.name,
      role,
      roleFromGroups: fromGroups,
    },
    context,
  );
  const user = provisioned.user;
  if (!user) throw new Error('identity answered ProvisionSsoMember without an account');
  await linkSsoSubject(deps.pool, { connectionId: connection.id, subject: person.subject, userId: user.id, email: person.email });
  return {
    userId: user.id,
    organizationId: connection.organizationId,
    connectionId: connection.id,
    createdAccount: provisioned.created,
    role: provisioned.member?.role ?? role,
    returnTo,
  };
}

/**
 * Home-realm discovery (docs/api.md, "Enterprise SSO"): the organisation of
 * the email's verified domain, or of the slug, and its oldest connection.
 * No organisation, or one without a connection: sso:connection_not_found.
 */
export async function startSignIn(
  deps: SsoDeps,
  input: { email: string; organizationSlug: string; browserBinding: string; returnTo: string },
  context: RequestContext,
): Promise<{ url: string; connectionId: string; expiresAt: Date }> {
  let organizationId: string;
  try {
    ({ organizationId } = await deps.identity.findSsoOrganization({ email: input.email, organizationSlug: input.organizationSlug }, context));
  } catch (error) {
    if (error instanceof AppError && error.code === 'org:not_found') throw new AppError('sso:connection_not_found', undefined, { cause: error });
    throw error;
  }
  const [connection] = await listSsoConnections(deps.pool, organizationId);
  if (!connection) throw new AppError('sso:connection_not_found');
  const started =
    connection.type === 'saml' ? await startSamlSignIn(deps, connection, input) : await startOidcSignIn(deps, connection, input, context);
  return { ...started, connectionId: connection.id };
}

/**
 * Home-realm discovery before a password is asked for: the domain of the
 * email only (identity compares it, never the address), so the answer is
 * the same for every address of the domain, account or not.
 */
export async function discoverSignIn(deps: Pick<SsoDeps, 'pool' | 'identity'>, email: string, context: RequestContext): Promise<{ sso: boolean; enforced: boolean }> {
  let found;
  try {
    found = await deps.identity.findSsoOrganization({ email, organizationSlug: '' }, context);
  } catch (error) {
    if (error instanceof AppError && error.code === 'org:not_found') return { sso: false, enforced: false };
    throw error;
  }
  const [connection] = await listSsoConnections(deps.pool, found.organizationId);
  return connection ? { sso: true, enforced: found.ssoEnforced } : { sso: false, enforced: false };
}

async function connectionOfType<Type extends SsoConnection['type']>(deps: SsoDeps, connectionId: string, type: Type): Promise<SsoConnection & { type: Type }> {
  const connection = await findSsoConnection(deps.pool, connectionId);
  if (!connection || connection.type !== type) throw new AppError('sso:connection_not_found');
  return connection as SsoConnection & { type: Type };
}

export async function completeSaml(
  deps: SsoDeps,
  input: { connectionId: string; samlResponse: string; browserBinding: string },
  context: RequestContext,
): Promise<SignedIn> {
  const connection = await connectionOfType(deps, input.connectionId, 'saml');
  const assertion = await validateSamlResponse(deps, connection, input, context);
  return signInFederatedPerson(deps, connection, personOfSamlAssertion(assertion, connection.attributeMapping), assertion.returnTo, context);
}

export async function completeOidc(
  deps: SsoDeps,
  input: { connectionId: string; code: string; state: string; browserBinding: string },
  context: RequestContext,
): Promise<SignedIn> {
  const connection = await connectionOfType(deps, input.connectionId, 'oidc');
  const { person, returnTo } = await completeOidcSignIn(deps, connection, input, context);
  return signInFederatedPerson(deps, connection, person, returnTo, context);
}
