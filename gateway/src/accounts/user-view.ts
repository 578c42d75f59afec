import type { RequestContext } from '@latchkey/grpc-kit';
import type { identityV1 } from '@latchkey/contracts';
import type { z } from 'zod';
import type { userSchema } from './account-schemas';
import type { IdentityClient, PasskeysClient, TotpClient } from '../service-clients';
import type { Session, SessionStore } from '../sessions/session-store';

export type UserView = z.output<typeof userSchema>;

/** What the account's other units know of it: its second factor and its passkeys. */
export interface SignInState {
  readonly totpEnabled: boolean;
  readonly passkeysCount: number;
}

/** `{user}` of docs/api.md, "Accounts", from identity's account and what the other units know. */
export function userView(user: identityV1.User, state: SignInState): UserView {
  return {
    id: user.id,
    handle: user.handle,
    email: user.email,
    email_verified: user.emailVerifiedAt !== undefined,
    email_verified_at: user.emailVerifiedAt?.toISOString() ?? null,
    has_password: user.hasPassword,
    totp_enabled: state.totpEnabled,
    passkeys_count: state.passkeysCount,
    created_at: (user.createdAt ?? new Date(0)).toISOString(),
  };
}

/** The units beside identity that know something of an account. */
export interface SignInStateSources {
  readonly totp: TotpClient;
  readonly passkeys: PasskeysClient;
}

/** The second factor is the totp service's to know, the passkeys the passkeys service's: ask both at once. */
export async function signInStateOf(deps: SignInStateSources, userId: string, context: RequestContext): Promise<SignInState> {
  const [status, { count }] = await Promise.all([
    deps.totp.getStatus({ userId }, context),
    deps.passkeys.countPasskeys({ userId }, context),
  ]);
  return { totpEnabled: status.enabled, passkeysCount: count };
}

/** The account as docs/api.md shows it; every answer is needed, so ask at once. */
export async function accountView(
  deps: SignInStateSources & { readonly identity: IdentityClient },
  userId: string,
  context: RequestContext,
): Promise<UserView> {
  const [{ user }, state] = await Promise.all([deps.identity.getUser({ userId }, context), signInStateOf(deps, userId, context)]);
  return userView(user!, state);
}

/** The view of an account already at hand, for answers that just changed it. */
export async function viewOf(deps: SignInStateSources, user: identityV1.User, context: RequestContext): Promise<UserView> {
  return userView(user, await signInStateOf(deps, user.id, context));
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
  deps: SignInStateSources & { readonly identity: IdentityClient; readonly sessions: SessionStore },
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
