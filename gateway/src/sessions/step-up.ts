import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '@latchkey/errors';
import { passkeyBrowserBinding } from '../http/browser-binding';
import type { CredentialLimits } from '../limits/credential-limits';
import type { IdentityClient, PasskeysClient, TotpClient } from '../service-clients';
import { sessionAccountView } from './session-profile';
import type { SessionAccess } from './session-auth';
import { signInMethods, type Session } from './session-store';

/**
 * How long a provider re-authentication of an account with TOTP waits for
 * its code (docs/api.md, "Re-authentication").
 */
export const FIRST_FACTOR_WAIT_MS = 5 * 60 * 1000;

/** What proving identity again takes: the same units as signing in. */
export type StepUpDeps = SessionAccess & {
  readonly identity: IdentityClient;
  readonly totp: TotpClient;
  readonly passkeys: PasskeysClient;
  readonly limits: CredentialLimits;
};

/** What POST /v0/auth/reauthenticate carries (at least one, a passkey alone). */
export interface StepUpProof {
  readonly password?: string | undefined;
  readonly code?: string | undefined;
  readonly backupCode?: string | undefined;
  readonly passkey?: unknown;
}

const secondFactorRequired = (): AppError =>
  new AppError(
    'auth:second_factor_required',
    'This account has two-factor authentication: send the password together with a code or a backup code, a code within 5 minutes of a provider re-authentication, or use a passkey.',
  );

/**
 * Re-authentication proves as much as a sign-in of the account would
 * (docs/api.md, "Re-authentication"): a passkey alone; on an account with
 * TOTP the password and a code together, or a code after a provider
 * re-authentication of the last 5 minutes; on one without, the password.
 * One factor alone where two sign in is `auth:second_factor_required`,
 * answered before anything is checked or spent. A wrong password counts
 * like a wrong login, a wrong code like a wrong code at login; the password
 * is checked first, so a wrong one spends no backup code. Answers when the
 * proof was recorded.
 */
export async function stepUp(deps: StepUpDeps, request: FastifyRequest, reply: FastifyReply, session: Session, proof: StepUpProof): Promise<number> {
  const userId = session.userId;
  if (proof.passkey !== undefined) {
    const binding = passkeyBrowserBinding.take(request, reply, deps.cookie.secure);
    if (binding === '') throw new AppError('passkey:challenge_invalid');
    // Only one of this account's passkeys proves this account's owner.
    await deps.passkeys.finishAuthentication({ binding, responseJson: JSON.stringify(proof.passkey), expectedUserId: userId }, request.ctx);
    return deps.sessions.markAuthenticated(session, ['webauthn']);
  }
  const secondFactor = proof.code !== undefined ? { userId, code: proof.code } : proof.backupCode !== undefined ? { userId, backupCode: proof.backupCode } : undefined;
  const { enabled: totpEnabled } = await deps.totp.getStatus({ userId }, request.ctx);
  if (!totpEnabled) {
    if (secondFactor) throw new AppError('totp:not_enabled');
    await checkPassword(deps, request, session, proof.password!);
    return deps.sessions.markAuthenticated(session, ['pwd']);
  }
  if (!secondFactor) throw secondFactorRequired();
  let firstFactor: 'pwd' | 'fed';
  if (proof.password !== undefined) {
    await checkPassword(deps, request, session, proof.password);
    firstFactor = 'pwd';
  } else {
    const pending = session.pendingFirstFactor;
    if (!pending || Date.now() - pending.at > FIRST_FACTOR_WAIT_MS) throw secondFactorRequired();
    firstFactor = pending.method;
  }
  // Spent like at login, and counted against the TOTP code limit.
  await deps.totp.confirmSecondFactor(secondFactor, request.ctx);
  return deps.sessions.markAuthenticated(session, signInMethods(firstFactor, true));
}

/**
 * A provider re-authentication that confirmed one of the account's own
 * identities: the whole proof on an account without TOTP; on one with it,
 * the first factor, kept in the session for a code (then
 * `auth:second_factor_required`).
 */
export async function stepUpWithProvider(deps: Pick<StepUpDeps, 'totp' | 'sessions'>, request: FastifyRequest, session: Session): Promise<number> {
  const { enabled: totpEnabled } = await deps.totp.getStatus({ userId: session.userId }, request.ctx);
  if (!totpEnabled) return deps.sessions.markAuthenticated(session, ['fed']);
  await deps.sessions.markFirstFactor(session, 'fed');
  throw secondFactorRequired();
}

/** A wrong password counts like a wrong login: a stolen session is no password oracle. */
async function checkPassword(deps: StepUpDeps, request: FastifyRequest, session: Session, password: string): Promise<void> {
  const { email } = await sessionAccountView(deps, session, request);
  await deps.limits.checkPassword(email, request, () => deps.identity.checkPassword({ userId: session.userId, password }, request.ctx));
}
