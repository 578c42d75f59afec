import { queueEvent } from '@latchkey/domain-events';
import type { RequestContext } from '@latchkey/grpc-kit';
import { uuidv7 } from 'uuidv7';
import { AppError } from '@latchkey/errors';
import { isUniqueViolation, withTransaction } from '@latchkey/db';
import { assertValid, checkEmail, checkHandle, checkNewEmail, checkPassword, normalizeEmail, normalizeHandle } from './account-rules';
import type { IdentityDeps } from './identity-deps';
import { queueMail } from './mail-queue';
import { consumeToken, issueToken } from './one-time-tokens';
import { findUserByEmail, findUserById, insertUser, markEmailVerified, type UserRecord } from './user-store';

/** Translates the users table's unique constraints into the contract's codes. */
export function uniquenessError(error: unknown): AppError | undefined {
  if (isUniqueViolation(error, 'users_handle_key')) return new AppError('user:handle_taken');
  if (isUniqueViolation(error, 'users_email_key')) return new AppError('user:email_taken');
  return undefined;
}

/** Creates an unverified account and queues its verification mail in the same transaction. */
export async function registerUser(
  deps: IdentityDeps,
  input: { handle: string; email: string; password: string },
  context: RequestContext,
): Promise<UserRecord> {
  assertValid(checkHandle(input.handle), checkNewEmail(input.email), checkPassword(input.password, input));
  const handle = normalizeHandle(input.handle);
  const email = normalizeEmail(input.email);
  const passwordHash = await deps.hasher.hash(input.password);
  try {
    return await withTransaction(deps.pool, context, async (db) => {
      const user = await insertUser(db, { id: uuidv7(), handle, email, passwordHash, emailVerified: false });
      const token = await issueToken(db, user.id, 'verify_email', deps.tokenTtlMinutes.verifyEmail);
      await queueMail(db, { template: 'verify_email', to: email, handle, token }, context);
      await queueEvent(db, 'user.registered', { userId: user.id, method: 'password' }, context);
      return user;
    });
  } catch (error) {
    throw uniquenessError(error) ?? error;
  }
}

/**
 * Creates an account for someone an identity provider vouched for: the
 * email counts verified and there is no password until a reset sets one.
 */
export async function createVerifiedUser(
  deps: IdentityDeps,
  input: { handle: string; email: string },
  context: RequestContext,
): Promise<UserRecord> {
  assertValid(checkHandle(input.handle), checkNewEmail(input.email));
  try {
    return await withTransaction(deps.pool, context, async (db) => {
      const user = await insertUser(db, {
        id: uuidv7(),
        handle: normalizeHandle(input.handle),
        email: normalizeEmail(input.email),
        passwordHash: null,
        emailVerified: true,
      });
      await queueEvent(db, 'user.registered', { userId: user.id, method: 'provider' }, context);
      return user;
    });
  } catch (error) {
    throw uniquenessError(error) ?? error;
  }
}

/** Consumes a verification token and marks the email verified. */
export async function verifyEmail(deps: IdentityDeps, token: string, context: RequestContext): Promise<UserRecord> {
  return withTransaction(deps.pool, context, async (db) => {
    const consumed = await consumeToken(db, token, 'verify_email');
    const user = consumed && (await markEmailVerified(db, consumed.userId));
    if (!user) throw new AppError('auth:token_invalid');
    await queueEvent(db, 'user.email_verified', { userId: user.id }, context);
    return user;
  });
}

/**
 * Issues a fresh verification mail when the account exists and is not
 * verified yet. It answers the same in every case, so that it reveals
 * nothing about which addresses have accounts.
 */
export async function sendVerificationEmail(
  deps: IdentityDeps,
  account: { userId?: string; email?: string },
  context: RequestContext,
): Promise<void> {
  await withTransaction(deps.pool, context, async (db) => {
    let user: UserRecord | undefined;
    if (account.userId) user = await findUserById(db, account.userId, true);
    else if (account.email && checkEmail(account.email).length === 0) {
      user = await findUserByEmail(db, normalizeEmail(account.email));
    }
    if (!user || user.email_verified_at) return;
    const token = await issueToken(db, user.id, 'verify_email', deps.tokenTtlMinutes.verifyEmail);
    await queueMail(db, { template: 'verify_email', to: user.email, handle: user.handle, token }, context);
  });
}
