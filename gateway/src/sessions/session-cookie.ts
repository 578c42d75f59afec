import type {} from '@fastify/cookie';
import type { FastifyReply } from 'fastify';

export const SESSION_COOKIE = 'session_id';

export interface CookieSettings {
  readonly secure: boolean;
  readonly maxAgeSeconds: number;
}

/** docs/api.md, "Session cookie": HttpOnly, SameSite=Lax, Path=/, Secure unless turned off, Max-Age = the absolute lifetime. */
export function setSessionCookie(reply: FastifyReply, value: string, settings: CookieSettings): void {
  void reply.setCookie(SESSION_COOKIE, value, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: settings.secure,
    maxAge: settings.maxAgeSeconds,
  });
}

export function clearSessionCookie(reply: FastifyReply, settings: CookieSettings): void {
  void reply.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', path: '/', secure: settings.secure });
}
