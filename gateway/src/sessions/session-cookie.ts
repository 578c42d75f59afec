import type {} from '@fastify/cookie';
import type { FastifyReply } from 'fastify';

export interface CookieSettings {
  /** SESSION_COOKIE_NAME: `session_id`, or `__Host-session_id` where every client speaks HTTPS. */
  readonly name: string;
  readonly secure: boolean;
  readonly maxAgeSeconds: number;
}

/** docs/api.md, "Session cookie": HttpOnly, SameSite=Lax, Path=/, Secure unless turned off, Max-Age = the absolute lifetime. */
export function setSessionCookie(reply: FastifyReply, value: string, settings: CookieSettings): void {
  void reply.setCookie(settings.name, value, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: settings.secure,
    maxAge: settings.maxAgeSeconds,
  });
}

export function clearSessionCookie(reply: FastifyReply, settings: CookieSettings): void {
  void reply.clearCookie(settings.name, { httpOnly: true, sameSite: 'lax', path: '/', secure: settings.secure });
}
