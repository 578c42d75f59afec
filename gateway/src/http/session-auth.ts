import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '@latchkey/errors';
import type { GatewayDeps } from '../gateway-deps';
import type { Session } from '../session-store';
import type { UserView } from '../user-view';
import { clearSessionCookie, SESSION_COOKIE, setSessionCookie } from './session-cookie';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by `requireSession` on protected routes. */
    session: Session | undefined;
  }
}

/** The session of a protected route; present once `requireSession` ran. */
export function sessionOf(request: FastifyRequest): Session {
  if (!request.session) throw new AppError('auth:unauthorized');
  return request.session;
}

/** preHandler of protected routes: a live session or 401 with the cookie cleared (API.md part 3). */
export function requireSession(deps: GatewayDeps) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const session = await deps.sessions.authenticate(request.cookies[SESSION_COOKIE]);
    if (!session) {
      clearSessionCookie(reply, deps.cookie);
      throw new AppError('auth:unauthorized');
    }
    request.session = session;
  };
}

/** Resolves the session when one is present, for routes that work either way. */
export async function optionalSession(deps: GatewayDeps, request: FastifyRequest): Promise<Session | undefined> {
  return deps.sessions.authenticate(request.cookies[SESSION_COOKIE]);
}

/** Signs the user in on this response: a new server-side session and its cookie. */
export async function startSession(
  deps: GatewayDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  account: { readonly userId: string; readonly handle: string | undefined },
  profile?: UserView,
): Promise<Session> {
  const { cookieValue, session } = await deps.sessions.create({
    userId: account.userId,
    handle: account.handle,
    userAgent: request.headers['user-agent'] ?? '',
    ip: request.ip,
    profile,
  });
  setSessionCookie(reply, cookieValue, deps.cookie);
  return session;
}
