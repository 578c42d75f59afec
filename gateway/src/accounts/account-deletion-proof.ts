import type { FastifyRequest } from 'fastify';
import { AppError, type FieldError } from '@latchkey/errors';
import type { CredentialLimits } from '../limits/credential-limits';
import type { IdentityClient, TotpClient } from '../service-clients';
import { assertRecentlyAuthenticated, type ProofCheck } from '../sessions/session-auth';
import type { Session } from '../sessions/session-store';

const TOTP_CODE = /^\d{6}$/;

/**
 * docs/api.md, "Deleting the account": deleting an account asks again for
 * what signs it in: the password when it has one, a TOTP or backup code
 * when TOTP is on. An account without a password (a provider's, or one with
 * passkeys only) has nothing to type: it needs a recent re-authentication
 * instead, as strong as a sign-in, which a stolen session alone cannot give.
 * The password is checked before a code is spent, so a wrong password
 * wastes no backup code. A wrong password counts against the login failure
 * limits and a wrong code against the TOTP one, so a stolen session guesses
 * no faster than a login.
 */
export async function assertAccountDeletionAllowed(
  deps: ProofCheck & { readonly identity: IdentityClient; readonly totp: TotpClient; readonly limits: CredentialLimits },
  request: FastifyRequest,
  session: Session,
  proof: { password?: string | undefined; code?: string | undefined },
): Promise<void> {
  const context = request.ctx;
  const userId = session.userId;
  const [{ user }, totp] = await Promise.all([deps.identity.getUser({ userId }, context), deps.totp.getStatus({ userId }, context)]);
  const missing: FieldError[] = [];
  if (user!.hasPassword && !proof.password) missing.push({ field: 'password', message: 'is required' });
  if (totp.enabled && !proof.code) missing.push({ field: 'code', message: 'is required while TOTP is on' });
  if (missing.length > 0) throw AppError.validation(missing);
  if (!user!.hasPassword) await assertRecentlyAuthenticated(deps, session, request);

  if (user!.hasPassword) {
    await deps.limits.checkPassword(user!.email, request, () => deps.identity.checkPassword({ userId, password: proof.password! }, context));
  }
  if (totp.enabled) {
    const code = proof.code!;
    await deps.totp.confirmSecondFactor(TOTP_CODE.test(code) ? { userId, code } : { userId, backupCode: code }, context);
  }
}
