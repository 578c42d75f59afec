import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '@latchkey/errors';
import { isMultiFactor, type AuthenticationMethod, type Session, type SessionStore } from './session-store';
import type { RequestContext } from '@latchkey/grpc-kit';
import type { UserView } from '../account-view/user-view';
import type { IdentityClient } from '../service-clients';
import { clearSessionCookie, setSessionCookie, type CookieSettings } from './session-cookie';

/** What reading and starting sessions takes: the store, the cookie's settings, how recent a proof privileged changes need. */
export interface SessionAccess {
  readonly sessions: SessionStore;
  readonly cookie: CookieSettings;
  /** AUTH_REAUTH_MAX_AGE_SECONDS in milliseconds. */
  readonly reauthMaxAgeMs: number;
}

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

/**
 * The guard of protected routes: a live session or 401 with the cookie
 * cleared (docs/api.md, "Session cookie"). It is their `onRequest` hook, which runs
 * before the body is read, so an anonymous request is refused without the
 * gateway reading (up to 2 MiB of) what it sent.
 */
export function requireSession(deps: SessionAccess) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const session = await deps.sessions.authenticate(request.cookies[deps.cookie.name], () => request.ctx);
    if (!session) {
      clearSessionCookie(reply, deps.cookie);
      throw new AppError('auth:unauthorized');
    }
    request.session = session;
  };
}

/** What a check of the session's last proof needs: its age limit, and identity, whose credential ledger knows the account's factors. */
export type ProofCheck = Pick<SessionAccess, 'reauthMaxAgeMs'> & { readonly identity: IdentityClient };

/**
 * docs/api.md, "Re-authentication": a change that adds, removes or moves a
 * way into the account needs the session's last proof of identity to be
 * recent, so that a stolen session alone cannot make it, and multi-factor
 * whenever the account has a second factor (TOTP, or a passkey that still
 * signs in): a stolen password alone must not add a passkey that then
 * passes for a second factor, nor remove the owner's. The account's
 * factors are asked for only when the proof was single-factor.
 */
export async function assertRecentlyAuthenticated(deps: ProofCheck, session: Session, request: FastifyRequest): Promise<void> {
  if (Date.now() - session.authenticatedAt > deps.reauthMaxAgeMs) throw new AppError('auth:reauthentication_required');
  if (isMultiFactor(session.proofMethods)) return;
  if (await hasSecondFactor(deps, session.userId, request.ctx)) {
    throw new AppError(
      'auth:reauthentication_required',
      'This change needs a multi-factor proof, as the account has a second factor: re-authenticate with a passkey, or with your password and a code.',
    );
  }
}

/**
 * TOTP on, or a passkey that signs in, as identity's credential ledger
 * holds them (docs/architecture.md, "The credential ledger"): one being
 * added or removed counts, so a change in flight errs towards asking more.
 * A passkey the passkeys service suspends as a suspected clone signs
 * nothing in, so it proves nothing: an owner whose only passkey was copied
 * removes it, and adds a new one, with the password.
 */
async function hasSecondFactor(deps: ProofCheck, userId: string, context: RequestContext): Promise<boolean> {
  const { user } = await deps.identity.getUser({ userId }, context);
  return !user!.singleFactorSuffices;
}

/** The guard of privileged routes, after `requireSession`: 403 `auth:reauthentication_required` without a recent, full proof. */
export function requireRecentAuthentication(deps: ProofCheck) {
  return async (request: FastifyRequest): Promise<void> => {
    await assertRecentlyAuthenticated(deps, sessionOf(request), request);
  };
}

/** Resolves the session when one is present, for routes that work either way. */
export async function optionalSession(deps: SessionAccess, request: FastifyRequest): Promise<Session | undefined> {
  return deps.sessions.authenticate(request.cookies[deps.cookie.name], () => request.ctx);
}

/** Signs the user in on this response: a new server-side session and its cookie. */
export async function startSession(
  deps: SessionAccess,
  request: FastifyRequest,
  reply: FastifyReply,
  account: {
    readonly userId: string;
    readonly handle: string | undefined;
    readonly sessionEpoch: number;
    readonly methods: readonly AuthenticationMethod[];
  },
  profile?: UserView,
  /** The organisation the session acts for from the start (an SSO sign-in's). */
  activeOrganizationId?: string,
): Promise<Session> {
  const { cookieValue, session } = await deps.sessions.create(
    {
      userId: account.userId,
      handle: account.handle,
      sessionEpoch: account.sessionEpoch,
      methods: account.methods,
      userAgent: request.headers['user-agent'] ?? '',
      ip: request.ip,
      // A new session acts for no organisation.
      profile: profile && { ...profile, active_org: null },
    },
    request.ctx,
  );
  if (activeOrganizationId !== undefined) await deps.sessions.setActiveOrganization(session, activeOrganizationId);
  setSessionCookie(reply, cookieValue, deps.cookie);
  return session;
}
