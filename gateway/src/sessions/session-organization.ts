import type { orgsV1 } from '@latchkey/contracts';
import type { RequestContext } from '@latchkey/grpc-kit';
import type { OrgsClient } from '../service-clients';
import type { Session, SessionStore } from './session-store';

/**
 * The organisation a session acts for, as the account's membership of it
 * stands now (identity, orgs.v1 GetMembership): what a service token and a
 * session introspection carry, so that a removal or a role change shows in
 * the very next one. A session whose account is no longer a member acts
 * for none from then on.
 */
export async function activeOrganizationOf(
  deps: { readonly orgs: OrgsClient; readonly sessions: SessionStore },
  session: Session,
  context: RequestContext,
): Promise<orgsV1.Organization | undefined> {
  if (session.activeOrganizationId === undefined) return undefined;
  const { found, organization } = await deps.orgs.getMembership({ userId: session.userId, organization: session.activeOrganizationId }, context);
  if (found && organization) return organization;
  // The session may have ended meanwhile: nothing is left to clear then.
  await deps.sessions.setActiveOrganization(session, undefined).catch(() => undefined);
  return undefined;
}
