import type { RequestContext } from '@latchkey/grpc-kit';
import { AppError } from '@latchkey/errors';
import { normalizeEmail } from './account-rules';
import type { IdentityDeps } from './identity-deps';
import { refuseWhenSsoRequired } from './orgs/sso-enforcement';
import { findUserByEmail, upgradePasswordHash, type UserRecord } from './user-store';
import { recordSignIn } from './orgs/org-audit-log';

/**
 * Checks credentials in the order of docs/api.md, "Authentication": password first, then
 * the verified email. An unknown email, an account without a password and a
 * wrong password give one answer after one Argon2 verification each.
 * Before any of it, an email whose organisation enforces SSO is refused,
 * account or not: which domains enforce SSO is no secret (an email-first
 * sign-in page shows it), and the password is never looked at.
 */
export async function authenticatePassword(
  deps: IdentityDeps,
  input: { email: string; password: string },
  context: RequestContext,
): Promise<UserRecord> {
  await refuseWhenSsoRequired(deps.pool, input.email);
  const user = await findUserByEmail(deps.pool, normalizeEmail(input.email));
  const check = user?.password_hash
    ? await deps.hasher.verify(user.password_hash, input.password)
    : await deps.hasher.verifyAgainstDummy(input.password);
  if (!user) throw new AppError('auth:invalid_credentials');
  if (!check.valid) {
    await recordSignIn(deps.pool, user.id, { succeeded: false, method: 'password', reason: 'invalid_credentials' }, context);
    throw new AppError('auth:invalid_credentials');
  }
  if (check.needsRehash && user.password_hash) {
    const previousHash = user.password_hash;
    // The login succeeds either way; a stale hash is upgraded at the next try.
    await deps.hasher
      .hash(input.password)
      .then((hash) => upgradePasswordHash(deps.pool, user.id, previousHash, hash))
      .catch((error: unknown) => context.logger.warn({ err: error }, 'could not upgrade a password hash'));
  }
  if (!user.email_verified_at) throw new AppError('auth:email_not_verified');
  // After the password: the answer tells only someone who knows it that the account exists.
  if (user.disabled_at) {
    await recordSignIn(deps.pool, user.id, { succeeded: false, method: 'password', reason: 'account_disabled' }, context);
    throw new AppError('auth:account_disabled');
  }
  // Members' sign-ins are in their organisations' audit logs (docs/audit.md).
  await recordSignIn(deps.pool, user.id, { succeeded: true, method: 'password' }, context);
  return user;
}
