import type { Session, SessionStore } from './session-store';

/**
 * Ends a signed-in session at the user's request: POST /v0/auth/logout and
 * the OpenID Provider's end-session endpoint (docs/oidc.md, "Logout") take
 * this one path, so that both end a session the same way.
 */
export async function signOut(sessions: SessionStore, session: Pick<Session, 'tokenHash' | 'publicId' | 'userId'>): Promise<void> {
  await sessions.delete(session);
}
