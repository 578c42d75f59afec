import type * as OidcProvider from 'oidc-provider';
import type { ClaimsParameter, KoaContextWithOIDC } from 'oidc-provider';
import type { orgsV1 } from '@latchkey/contracts';
import type { RequestContext } from '@latchkey/grpc-kit';
import type { OrgsClient } from '../service-clients';
import { providerRequestContext } from './provider-context';
import { ORGANIZATIONS_SCOPE, requestedOrganizationOf } from './requested-organization';

type ProviderErrors = typeof OidcProvider.errors;
type Middleware = Parameters<OidcProvider.default['use']>[0];

/** A code or token as far as its organisation goes. */
type OrganizationBearer = { readonly claims?: ClaimsParameter | undefined } | undefined;

/** The words of every refusal of a token whose account left its organisation. */
const NO_LONGER_A_MEMBER = 'the account is no longer a member of the organization';

/** org_id, org_slug, org_role and org_permissions: the membership as identity answers it now. */
export function organizationClaimsOf(organization: orgsV1.Organization): Record<string, unknown> {
  return { org_id: organization.id, org_slug: organization.slug, org_role: organization.role, org_permissions: [...organization.permissions] };
}

/**
 * The membership of the organisation a code or token was issued for
 * (requested-organization.ts), read from identity when it is exchanged,
 * refreshed or presented at userinfo: a removal, a role change or a
 * deletion shows in the very next one. A token of an organisation the
 * account is no longer a member of is refused (invalid_grant at the token
 * endpoint, invalid_token at userinfo), not answered without the
 * organisation: the client asked to act for that organisation, and tokens
 * that quietly stop saying so would let it go on as if nothing changed
 * (docs/oidc.md, "Organisations"). The refresh token stays unused, so it
 * works again should the account become a member again within its
 * lifetime; a client that wants another organisation starts a new
 * authorization. Undefined when the token names no organisation.
 */
export async function organizationOfToken(
  orgs: OrgsClient,
  errors: ProviderErrors,
  ctx: KoaContextWithOIDC,
  userId: string,
  token: OrganizationBearer,
): Promise<orgsV1.Organization | undefined> {
  const requested = requestedOrganizationOf(token);
  if (requested === undefined) return undefined;
  const organization = await membershipNow(orgs, userId, requested, providerRequestContext(ctx.req));
  if (organization) return organization;
  throw Object.assign(ctx.oidc.route === 'userinfo' ? new errors.InvalidToken() : new errors.InvalidGrant(), { error_description: NO_LONGER_A_MEMBER });
}

/**
 * The organisation claims of an account for a token's scope: the
 * requested organisation's (oidc-provider keeps only those the scope
 * `organization` was granted for), and with `organizations` every
 * membership as `{id, slug, role}`, oldest first, read now.
 */
export async function organizationClaims(
  orgs: OrgsClient,
  ctx: KoaContextWithOIDC,
  userId: string,
  organization: orgsV1.Organization | undefined,
  scope: string,
): Promise<Record<string, unknown>> {
  const claims = organization ? organizationClaimsOf(organization) : {};
  if (!scope.split(' ').includes(ORGANIZATIONS_SCOPE)) return claims;
  const { organizations } = await orgs.listMemberships({ userId }, providerRequestContext(ctx.req));
  return { ...claims, organizations: organizations.map(({ id, slug, role }) => ({ id, slug, role })) };
}

/**
 * Introspection (RFC 7662) of a token issued for an organisation answers
 * the membership as it is now, beside oidc-provider's fields: the
 * organisation claims, or `active: false` once the account is no longer a
 * member, as a refresh would be refused.
 */
export function introspectOrganization(orgs: OrgsClient): Middleware {
  return async (ctx, next) => {
    await next();
    const { oidc } = ctx as KoaContextWithOIDC;
    const body = ctx.body as { active?: boolean } | undefined;
    if (oidc?.route !== 'introspection' || body?.active !== true) return;
    const token = (oidc.entities.AccessToken ?? oidc.entities.RefreshToken) as (OrganizationBearer & { readonly accountId?: string }) | undefined;
    const requested = requestedOrganizationOf(token);
    if (requested === undefined || token?.accountId === undefined) return;
    const organization = await membershipNow(orgs, token.accountId, requested, providerRequestContext(ctx.req));
    ctx.body = organization ? { ...body, ...organizationClaimsOf(organization) } : { active: false };
  };
}

async function membershipNow(orgs: OrgsClient, userId: string, organizationId: string, context: RequestContext): Promise<orgsV1.Organization | undefined> {
  const { found, organization } = await orgs.getMembership({ userId, organization: organizationId }, context);
  return found ? organization : undefined;
}
