import type { RequestContext } from '@latchkey/grpc-kit';
import { identityV1 } from '@latchkey/contracts';
import type { z } from 'zod';
import type { userSchema } from './user-schema';
import type { IdentityClient, TotpClient } from '../service-clients';

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

/** What knows the account's ways in: identity's ledger of sign-in methods, and the totp service its second factor. */
export interface SignInStateSources {
  readonly identity: IdentityClient;
  readonly totp: TotpClient;
}

/** How many passkeys identity's ledger lists, those being removed included: they still work. */
export function passkeysCountOf(methods: readonly identityV1.SignInMethod[]): number {
  return methods.filter((method) => method.kind === identityV1.SignInMethodKind.SIGN_IN_METHOD_KIND_PASSKEY).length;
}

/**
 * The account with its ways in (identity.v1 GetUser, whose ledger counts
 * the passkeys) and its second factor, asked at once. `getUser` stands for
 * identity's GetUser, for a caller that answers its failure its own way.
 */
export async function accountWithState(
  deps: SignInStateSources,
  userId: string,
  context: RequestContext,
  getUser: (userId: string, context: RequestContext) => Promise<identityV1.GetUserResponse> = (id, ctx) => deps.identity.getUser({ userId: id }, ctx),
): Promise<{ user: identityV1.User; state: SignInState }> {
  const [{ user, signInMethods }, status] = await Promise.all([getUser(userId, context), deps.totp.getStatus({ userId }, context)]);
  return { user: user!, state: { totpEnabled: status.enabled, passkeysCount: passkeysCountOf(signInMethods) } };
}

/** The account as docs/api.md shows it. */
export async function accountView(deps: SignInStateSources, userId: string, context: RequestContext): Promise<UserView> {
  const { user, state } = await accountWithState(deps, userId, context);
  return userView(user, state);
}

/** The view of an account just changed, for the answer of the change. */
export async function viewOf(deps: SignInStateSources, user: identityV1.User, context: RequestContext): Promise<UserView> {
  return accountView(deps, user.id, context);
}
