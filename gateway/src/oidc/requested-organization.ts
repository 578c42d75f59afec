import type * as OidcProvider from 'oidc-provider';
import type { ClaimsParameter, ClaimsParameterMember, KoaContextWithOIDC } from 'oidc-provider';
import type { OrgsClient } from '../service-clients';
import { providerRequestContext } from './provider-context';

/** The authorization parameter that names the organisation a client signs the user in to: its id or its slug. */
export const ORGANIZATION_PARAMETER = 'organization';
/** The scope that goes with the parameter: the requested organisation's claims. */
export const ORGANIZATION_SCOPE = 'organization';
/** The scope of every organisation the user belongs to. */
export const ORGANIZATIONS_SCOPE = 'organizations';

/** The claims each organisation scope releases (docs/oidc.md, "Organisations"). */
export const organizationScopeClaims = {
  [ORGANIZATION_SCOPE]: ['org_id', 'org_slug', 'org_role', 'org_permissions'],
  [ORGANIZATIONS_SCOPE]: ['organizations'],
} as const;

/** The one answer for an organisation the account is not a member of, and for one that does not exist. */
export const NOT_A_MEMBER = 'the account is not a member of the requested organization';

type ProviderErrors = typeof OidcProvider.errors;
type Check = InstanceType<typeof OidcProvider.interactionPolicy.Check>;

/**
 * The `organization` parameter goes with the `organization` scope, each
 * with the other: a client that names an organisation gets its claims, and
 * a client that asks for the claims names the organisation. Whether the
 * organisation exists is not checked here, before anyone is signed in: a
 * non-member is refused as for an unknown organisation, once the account
 * is known (`organizationMemberCheck`).
 */
export function organizationParameter(errors: ProviderErrors) {
  return (ctx: KoaContextWithOIDC, value: string | undefined): void => {
    const scopes = new Set(typeof ctx.oidc.params?.['scope'] === 'string' ? ctx.oidc.params['scope'].split(' ') : []);
    if (value === undefined) {
      if (scopes.has(ORGANIZATION_SCOPE)) throw new errors.InvalidRequest(`the ${ORGANIZATION_SCOPE} scope needs the ${ORGANIZATION_PARAMETER} parameter`);
      return;
    }
    if (!scopes.has(ORGANIZATION_SCOPE)) throw new errors.InvalidRequest(`the ${ORGANIZATION_PARAMETER} parameter needs the ${ORGANIZATION_SCOPE} scope`);
  };
}

/**
 * Holds an authorization request that names an organisation to the
 * account's membership of it, read from identity once the account is
 * known, before any consent: a non-member's request ends in access_denied
 * for the client (a page or prompt=none alike), with the same words for an
 * organisation that does not exist. A member's request records the
 * organisation's id for the code it is answered with (`requestOrganization`).
 * The check of a prompt of its own after login and consent, so that it runs
 * only once both have passed: an account about to be switched for another
 * is not judged, and a client the user has not allowed learns nothing of
 * the user's memberships (prompt=none answers consent_required first; a
 * page of consent ends in access_denied, oidc-routes.ts). A device is held
 * to the same rule where the user allows it (oidc-routes.ts), since the
 * gateway approves device codes itself.
 */
export function organizationMemberCheck(CheckClass: typeof OidcProvider.interactionPolicy.Check, errors: ProviderErrors, orgs: OrgsClient): Check {
  return new CheckClass('organization_member', NOT_A_MEMBER, 'access_denied', async (ctx) => {
    const reference = ctx.oidc.params?.[ORGANIZATION_PARAMETER];
    const accountId = ctx.oidc.session?.accountId;
    if (typeof reference !== 'string' || accountId === undefined) return CheckClass.NO_NEED_TO_PROMPT;
    const { found, organization } = await orgs.getMembership({ userId: accountId, organization: reference }, providerRequestContext(ctx.req));
    if (!found || !organization) throw new errors.AccessDenied(NOT_A_MEMBER);
    requestOrganization(ctx.oidc.claims, organization.id);
    return CheckClass.NO_NEED_TO_PROMPT;
  });
}

/**
 * Where the organisation of an authorization lives until its last refresh.
 * Not on the grant: a grant is the user's consent to a client, one per user
 * and client (docs/oidc.md, "Consent"), which every authorization of that
 * client reuses, while the organisation is the authorization's own (one
 * app, two organisations, two tabs). Nor in a record of identity's keyed by
 * grant, for the same reason. The code carries the authorization's claims
 * request (a device code too, as the gateway approves it: oidc-routes.ts),
 * and oidc-provider copies it, as it is, to the access and refresh
 * tokens the code is exchanged for, and from a refresh token to the tokens
 * of each rotation; identity keeps it in each artifact's payload. So the
 * organisation rides there, as what it is: a request for the `org_id`
 * claim with the organisation's id as its value (OpenID Connect Core 1.0,
 * 5.5.1). Only the provider writes it: the `claims` request parameter is
 * off, and oidc-provider releases no claim of a claims request that the
 * grant does not name, so the entry releases nothing by itself; the claims
 * are computed from identity each time a token is issued
 * (organization-claims.ts).
 */
export function requestOrganization(claims: ClaimsParameter, organizationId: string): void {
  const member: ClaimsParameterMember = { value: organizationId };
  claims.id_token = { ...claims.id_token, org_id: member };
  claims.userinfo = { ...claims.userinfo, org_id: member };
}

/** A claims request naming only the organisation: what a device's tokens carry (oidc.v1 ApproveDeviceCode). */
export function organizationClaimsRequest(organizationId: string): ClaimsParameter {
  const claims: ClaimsParameter = {};
  requestOrganization(claims, organizationId);
  return claims;
}

/** The organisation a code or token was issued for (`requestOrganization`); undefined when it names none. */
export function requestedOrganizationOf(token: { readonly claims?: ClaimsParameter | undefined } | undefined): string | undefined {
  const member = token?.claims?.id_token?.['org_id'];
  return typeof member?.value === 'string' ? member.value : undefined;
}
