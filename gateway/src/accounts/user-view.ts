import type { RequestContext } from '@latchkey/grpc-kit';
import type { identityV1 } from '@latchkey/contracts';
import type { z } from 'zod';
import type { userSchema } from './account-schemas';
import type { IdentityClient, TotpClient } from '../service-clients';
import type { Session, SessionStore } from '../sessions/session-store';

export type UserView = z.output<typeof userSchema>;

/** `{user}` of docs/api.md, "Accounts", from identity's account and the second-factor state. */
export function userView(user: identityV1.User, totpEnabled: boolean): UserView {
  return {
    id: user.id,
    handle: user.handle,
    email: user.email,
    email_verified: user.emailVerifiedAt !== undefined,
    email_verified_at: user.emailVerifiedAt?.toISOString() ?? null,
    has_password: user.hasPassword,
    totp_enabled: totpEnabled,
    created_at: (user.createdAt ?? new Date(0)).toISOString(),
  };
}

/**
 * The account as docs/api.md shows it. The second factor is the totp service's
 * to know; both answers are needed, so ask both at once.
 */
export async function accountView(
  deps: { readonly identity: IdentityClient; readonly totp: TotpClient },
  userId: string,
  context: RequestContext,
): Promise<UserView> {
  const [{ user }, status] = await Promise.all([
    deps.identity.getUser({ userId }, context),
    deps.totp.getStatus({ userId }, context),
  ]);
  return userView(user!, status.enabled);
}

/** The view of an account already at hand, for answers that just changed it. */
export async function viewOf(
  deps: { readonly totp: TotpClient },
  user: identityV1.User,
  context: RequestContext,
): Promise<UserView> {
  const status = await deps.totp.getStatus({ userId: user.id }, context);
  return userView(user, status.enabled);
}

/**
 * How old a kept view may be before it is asked for again. Changes made
 * through the gateway drop the kept views at once; this bounds how long a
 * change made by another caller of the services' gRPC APIs can go unseen.
 */
export const PROFILE_MAX_AGE_MS = 60_000;

/**
 * GET /v0/users/me from the session when it holds a fresh view: one Redis
 * read on the hottest authenticated path instead of two service calls.
 * Nothing decides access from it; sign-in asks the services every time.
 */
export async function sessionAccountView(
  deps: { readonly identity: IdentityClient; readonly totp: TotpClient; readonly sessions: SessionStore },
  session: Session,
  request: { readonly ctx: RequestContext },
  now = Date.now(),
): Promise<UserView> {
  if (session.profile && now - session.profile.storedAt < PROFILE_MAX_AGE_MS) return session.profile.view;
  // Only now: a view served from the session needs no request context, which costs the hot path.
  const view = await accountView(deps, session.userId, request.ctx);
  await deps.sessions.saveProfile(session, view);
  return view;
}
