import type { RequestContext } from '@latchkey/grpc-kit';
import type { Session, SessionStore } from './session-store';

/**
 * Ends a signed-in session at the user's request: POST /v0/auth/logout and
 * the OpenID Provider's end-session endpoint (docs/oidc.md, "Logout") take
 * this one path, so that both end a session the same way and announce it
 * (session.revoked, reason `logout`).
 */
export async function signOut(
  sessions: SessionStore,
  session: Session,
  context: RequestContext,
): Promise<void> {
  await sessions.delete(session, 'logout', context);
}
