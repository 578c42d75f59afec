import type { RequestContext } from '@latchkey/grpc-kit';
import type { identityV1, orgsV1 } from '@latchkey/contracts';
import type { z } from 'zod';
import type { activeOrganizationSchema, meSchema, userSchema } from './user-schema';
import type { IdentityClient, TotpClient } from '../service-clients';

export type UserView = z.output<typeof userSchema>;
export type MeView = z.output<typeof meSchema>;

/** `{user}` of docs/api.md, "Accounts", from identity's account and whether TOTP is on. */
export function userView(user: identityV1.User, totpEnabled: boolean): UserView {
  return {
    id: user.id,
    handle: user.handle,
    email: user.email,
    email_verified: user.emailVerifiedAt !== undefined,
    email_verified_at: user.emailVerifiedAt?.toISOString() ?? null,
    has_password: user.hasPassword,
    totp_enabled: totpEnabled,
    passkeys_count: user.passkeysCount,
    created_at: (user.createdAt ?? new Date(0)).toISOString(),
  };
}

/** What knows the account: identity (with its credential ledger), and the totp service its second factor. */
export interface AccountSources {
  readonly identity: IdentityClient;
  readonly totp: TotpClient;
}

/**
 * Whether the account has TOTP on. Identity's credential ledger knows when
 * it is surely off (docs/architecture.md, "The credential ledger");
 * otherwise the totp service is asked.
 */
export async function totpEnabledFor(deps: Pick<AccountSources, 'totp'>, user: identityV1.User, context: RequestContext): Promise<boolean> {
  if (user.secondFactorOff) return false;
  return (await deps.totp.getStatus({ userId: user.id }, context)).enabled;
}

/**
 * The account (identity.v1 GetUser) and whether its TOTP is on. `getUser`
 * stands for identity's GetUser, for a caller that answers its failure its
 * own way.
 */
export async function accountWithTotp(
  deps: AccountSources,
  userId: string,
  context: RequestContext,
  getUser: (userId: string, context: RequestContext) => Promise<identityV1.GetUserResponse> = (id, ctx) => deps.identity.getUser({ userId: id }, ctx),
): Promise<{ user: identityV1.User; totpEnabled: boolean; activeOrganization: orgsV1.Organization | undefined }> {
  const { user, activeOrganization } = await getUser(userId, context);
  return { user: user!, totpEnabled: await totpEnabledFor(deps, user!, context), activeOrganization };
}

/** The account as docs/api.md shows it. */
export async function accountView(deps: AccountSources, userId: string, context: RequestContext): Promise<UserView> {
  const { user, totpEnabled } = await accountWithTotp(deps, userId, context);
  return userView(user, totpEnabled);
}

/** `active_org` of GET /v0/users/me. */
export function activeOrganizationView(organization: orgsV1.Organization): z.output<typeof activeOrganizationSchema> {
  return { id: organization.id, slug: organization.slug, role: organization.role, permissions: organization.permissions };
}

/**
 * GET /v0/users/me: the account with the organisation a session acts for,
 * read with it in one call to identity (null when the account is no longer
 * a member of it).
 */
export async function meView(deps: AccountSources, userId: string, activeOrganizationId: string | undefined, context: RequestContext): Promise<MeView> {
  const { user, totpEnabled, activeOrganization } = await accountWithTotp(deps, userId, context, (id, ctx) =>
    deps.identity.getUser({ userId: id, ...(activeOrganizationId === undefined ? {} : { activeOrganizationId }) }, ctx),
  );
  return { ...userView(user, totpEnabled), active_org: activeOrganization ? activeOrganizationView(activeOrganization) : null };
}

/** The view of an account just changed, for the answer of the change. */
export async function viewOf(deps: AccountSources, user: identityV1.User, context: RequestContext): Promise<UserView> {
  return accountView(deps, user.id, context);
}
