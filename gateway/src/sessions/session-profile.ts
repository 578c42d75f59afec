import type { RequestContext } from '@latchkey/grpc-kit';
import { meView, type AccountSources, type MeView } from '../account-view/user-view';
import type { Session, SessionStore } from './session-store';

/**
 * How old a kept view may be before it is asked for again. Changes made
 * through the gateway drop the kept views at once; this bounds how long a
 * change made by another caller of the services' gRPC APIs can go unseen.
 */
export const PROFILE_MAX_AGE_MS = 60_000;

/**
 * GET /v0/users/me from the session when it holds a fresh view: one Redis
 * read on the hottest authenticated path instead of a call to identity (and
 * to totp when the account may have TOTP on).
 * Nothing decides access from it; sign-in asks the services every time.
 */
export async function sessionAccountView(
  deps: AccountSources & { readonly sessions: SessionStore },
  session: Session,
  request: { readonly ctx: RequestContext },
  now = Date.now(),
): Promise<MeView> {
  if (session.profile && now - session.profile.storedAt < PROFILE_MAX_AGE_MS) return session.profile.view;
  // Only now: a view served from the session needs no request context, which costs the hot path.
  const view = await meView(deps, session.userId, session.activeOrganizationId, request.ctx);
  // An organisation the account left, or was removed from, is no longer the one the session acts for.
  const current = view.active_org === null && session.activeOrganizationId !== undefined ? { ...session, activeOrganizationId: undefined } : session;
  await deps.sessions.saveProfile(current, view);
  return view;
}
