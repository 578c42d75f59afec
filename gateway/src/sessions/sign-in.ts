import type { FastifyReply, FastifyRequest } from 'fastify';
import type { identityV1 } from '@latchkey/contracts';
import { AppError } from '@latchkey/errors';
import type { TotpClient } from '../service-clients';
import { userView, type UserView } from '../account-view/user-view';
import { startSession, type SessionAccess } from './session-auth';
import { signInMethods } from './session-store';

export interface TotpChallenge {
  totp_required: true;
  temp_token: string;
}

/** An account an administrator disabled gets no session, whichever way it proved itself. */
export function assertMaySignIn(user: Pick<identityV1.User, 'disabledAt'>): void {
  if (user.disabledAt) throw new AppError('auth:account_disabled');
}

/**
 * The last step of every first-factor sign-in (a password, or a provider):
 * an account with TOTP on gets a login challenge and no cookie; any other
 * gets its session (docs/api.md, "Authentication"). The totp service is
 * asked only when identity's credential ledger does not know TOTP to be
 * off (docs/architecture.md, "The credential ledger"), so that a sign-in of
 * an account without it is one call.
 */
export async function signIn(
  deps: SessionAccess & { readonly totp: TotpClient },
  request: FastifyRequest,
  reply: FastifyReply,
  user: identityV1.User,
  /** How the first factor was proved: a password, or an identity provider. */
  firstFactor: 'pwd' | 'fed',
  /** The organisation the session acts for from the start: an SSO connection's. */
  activeOrganizationId?: string,
): Promise<UserView | TotpChallenge> {
  assertMaySignIn(user);
  if (!user.secondFactorOff) {
    const { totpRequired, tempToken } = await deps.totp.beginLogin(
      { userId: user.id, firstFactor, sessionEpoch: user.sessionEpoch, organizationId: activeOrganizationId ?? '' },
      request.ctx,
    );
    if (totpRequired) return { totp_required: true, temp_token: tempToken };
  }
  const view = userView(user, false);
  const methods = signInMethods(firstFactor, false);
  await startSession(deps, request, reply, { userId: user.id, handle: user.handle, sessionEpoch: user.sessionEpoch, methods }, view, activeOrganizationId);
  return view;
}
