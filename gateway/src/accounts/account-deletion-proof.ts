import type { FastifyRequest } from 'fastify';
import { AppError, type FieldError } from '@latchkey/errors';
import type { CredentialLimits } from '../limits/credential-limits';
import type { IdentityClient, TotpClient } from '../service-clients';

const TOTP_CODE = /^\d{6}$/;

/**
 * docs/api.md, "Deleting the account": deleting an account asks again for what signs it in: the
 * password when it has one, a TOTP or backup code when TOTP is on, and its
 * own handle when it has neither (an OAuth-only account). The password is
 * checked before a code is spent, so a wrong password wastes no backup code.
 * A wrong password counts against the login failure limits and a wrong code
 * against the TOTP one, so a stolen session guesses no faster than a login.
 */
export async function assertAccountDeletionAllowed(
  deps: { readonly identity: IdentityClient; readonly totp: TotpClient; readonly limits: CredentialLimits },
  request: FastifyRequest,
  userId: string,
  proof: { password?: string | undefined; code?: string | undefined; handle?: string | undefined },
): Promise<void> {
  const context = request.ctx;
  const [{ user }, totp] = await Promise.all([
    deps.identity.getUser({ userId }, context),
    deps.totp.getStatus({ userId }, context),
  ]);
  const missing: FieldError[] = [];
  if (user!.hasPassword && !proof.password) missing.push({ field: 'password', message: 'is required' });
  if (totp.enabled && !proof.code) missing.push({ field: 'code', message: 'is required while TOTP is on' });
  if (!user!.hasPassword && !totp.enabled && !proof.handle) missing.push({ field: 'handle', message: 'is required' });
  if (missing.length > 0) throw AppError.validation(missing);

  if (user!.hasPassword) {
    await deps.limits.checkPassword(user!.email, request, () =>
      deps.identity.checkPassword({ userId, password: proof.password! }, context),
    );
  }
  if (totp.enabled) {
    const code = proof.code!;
    await deps.totp.confirmSecondFactor(
      TOTP_CODE.test(code) ? { userId, code } : { userId, backupCode: code },
      context,
    );
  }
  if (!user!.hasPassword && !totp.enabled && proof.handle!.toLowerCase() !== user!.handle) {
    throw AppError.validation([{ field: 'handle', message: 'must be the account’s own handle' }]);
  }
}
