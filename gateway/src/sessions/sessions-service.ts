import { isUuid } from '@latchkey/account-fields';
import type { sessionsV1 } from '@latchkey/contracts';
import { AppError } from '@latchkey/errors';
import type { ServiceHandlers } from '@latchkey/grpc-kit';
import type { OrgsClient } from '../service-clients';
import { activeOrganizationOf } from './session-organization';
import { isMultiFactor, type Session, type SessionStore } from './session-store';

type SessionsHandlers = ServiceHandlers<typeof sessionsV1.SessionsServiceService>;

const SESSION_ID = /^[A-Za-z0-9_-]{22}$/;

function requireUserId(value: string): string {
  if (!isUuid(value)) throw AppError.validation([{ field: 'user_id', message: 'must be a UUID' }]);
  return value.toLowerCase();
}

function toMessage(session: Session): sessionsV1.Session {
  return {
    sessionId: session.publicId,
    userId: session.userId,
    createdAt: new Date(session.createdAt),
    authenticatedAt: new Date(session.authenticatedAt),
    expiresAt: new Date(Math.min(session.expiresAt, session.maxExpiresAt)),
    lastSeenAt: new Date(session.lastSeenAt),
    authenticationMethods: [...session.methods],
    secondFactor: isMultiFactor(session.methods),
  };
}

/** sessions.v1 for the services beside Latchkey (docs/integration.md): the session store, read and ended by id. */
export function sessionsHandlers(sessions: SessionStore, orgs: OrgsClient): SessionsHandlers {
  return {
    async introspectSession({ token }, context) {
      const session = await sessions.inspect(token, () => context);
      if (!session) return { active: false };
      const organization = await activeOrganizationOf({ sessions, orgs }, session, context);
      return {
        active: true,
        session: toMessage(session),
        ...(organization ? { organization: { id: organization.id, slug: organization.slug, role: organization.role, permissions: organization.permissions } } : {}),
      };
    },
    async listSessions({ userId }, context) {
      return { sessions: (await sessions.list(requireUserId(userId), () => context)).map(toMessage) };
    },
    async revokeSession({ userId, sessionId }, context) {
      const user = requireUserId(userId);
      if (!SESSION_ID.test(sessionId)) throw AppError.validation([{ field: 'session_id', message: 'must be a session id' }]);
      if (!(await sessions.deleteByPublicId(user, sessionId, 'platform', context))) throw new AppError('session:not_found');
      return {};
    },
    async revokeAllSessions({ userId }, context) {
      return { revoked: await sessions.deleteAllForUser(requireUserId(userId), { reason: 'platform' }, context) };
    },
  };
}
