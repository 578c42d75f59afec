import type { RequestContext } from '@latchkey/grpc-kit';
import { identityV1 } from '@latchkey/contracts';
import { changeCredentials } from '@latchkey/credential-ledger';
import { AppError } from '@latchkey/errors';
import { redeemAuthorization } from './authorization';
import {
  connectionConflict,
  deleteConnection,
  deleteConnectionsOfUser,
  findConnectionByIdentity,
  findConnectionsOfUser,
  insertConnection,
  type ConnectionRecord,
} from './connection-store';
import { connectionLedger } from './connection-ledger';
import { queueConnectionNotice } from './mail-queue';
import type { OAuthDeps } from './oauth-deps';
import { deleteSsoSubjectsOfUser } from './sso/sso-connection-store';
import type { ProviderIdentity, ProviderName } from './providers/provider';

/**
 * The provider email as docs/api.md, "Sign-in with a provider (OAuth)", defines it, or oauth:email_not_verified:
 * an address the provider does not vouch for never links or creates anything.
 */
export function verifiedEmail(identity: ProviderIdentity): string {
  if (!identity.emailVerified || identity.email === undefined) throw new AppError('oauth:email_not_verified');
  return identity.email;
}

/**
 * The account from identity.v1; auth:unauthorized when it does not exist.
 * For a sign-in, identity refuses an account whose organisation enforces
 * SSO (auth:sso_required).
 */
export async function getAccount(
  deps: OAuthDeps,
  userId: string,
  context: RequestContext,
  signIn: identityV1.SignInMethod = identityV1.SignInMethod.SIGN_IN_METHOD_UNSPECIFIED,
): Promise<identityV1.User> {
  const { user } = await deps.identity.getUser({ userId, signIn }, context);
  if (!user) throw new AppError('auth:unauthorized');
  return user;
}

/** The account from identity.v1, or undefined when it was deleted. */
export async function findAccount(
  deps: OAuthDeps,
  userId: string,
  context: RequestContext,
  signIn: identityV1.SignInMethod = identityV1.SignInMethod.SIGN_IN_METHOD_UNSPECIFIED,
): Promise<identityV1.User | undefined> {
  try {
    return await getAccount(deps, userId, context, signIn);
  } catch (error) {
    if (error instanceof AppError && error.code === 'auth:unauthorized') return undefined;
    throw error;
  }
}

/**
 * Adds a connection and queues the `oauth_linked` notice to the account's
 * address in one transaction, reserved before in identity's credential
 * ledger and settled there after (docs/architecture.md, "The credential
 * ledger"). A provider identity belongs to one account, and an account has
 * one identity per provider: oauth:already_linked.
 */
export async function addConnection(
  deps: OAuthDeps,
  account: identityV1.User,
  connection: { provider: ProviderName; providerUserId: string; email: string },
  context: RequestContext,
): Promise<ConnectionRecord> {
  try {
    return await changeCredentials(deps, connectionLedger, account.id, async (db, ledger) => {
      const owner = await findConnectionByIdentity(db, connection.provider, connection.providerUserId);
      if (owner) {
        throw new AppError(
          'oauth:already_linked',
          owner.user_id === account.id ? 'This identity is already linked to this account.' : 'This identity is linked to another account.',
        );
      }
      const own = await findConnectionsOfUser(db, account.id);
      if (own.some((existing) => existing.provider === connection.provider)) {
        throw new AppError('oauth:already_linked', 'This account is already linked to another identity of this provider.');
      }
      await ledger.reserve(connection.provider);
      const created = await insertConnection(db, { ...connection, userId: account.id });
      await queueConnectionNotice(db, account, 'oauth_linked', connection.provider, context);
      return created;
    }, context);
  } catch (error) {
    throw connectionConflict(error) ?? error;
  }
}

/** The provider's answer to a state issued to a signed-in user. */
export interface UserCallback {
  readonly userId: string;
  readonly provider: ProviderName;
  readonly code: string;
  readonly state: string;
  readonly browserBinding: string;
}

/** Uses up a state of `purpose` issued to the same user and browser, and exchanges the code. */
function redeemUserAuthorization(deps: OAuthDeps, purpose: 'link' | 'reauthenticate', input: UserCallback, context: RequestContext) {
  return redeemAuthorization(deps, { provider: input.provider, purpose, userId: input.userId, browserBinding: input.browserBinding }, input, context);
}

/**
 * Links a provider to a signed-in account with a link state issued to that
 * same user. The provider's email must be verified here too, so that a
 * connection's email is always one the provider vouched for.
 */
export async function linkProvider(deps: OAuthDeps, input: UserCallback, context: RequestContext): Promise<ConnectionRecord> {
  const identity = await redeemUserAuthorization(deps, 'link', input, context);
  const email = verifiedEmail(identity);
  const account = await getAccount(deps, input.userId, context);
  return addConnection(deps, account, { provider: input.provider, providerUserId: identity.providerUserId, email }, context);
}

/**
 * A fresh proof of identity through a provider, for an account without a
 * password: the state must be a reauthenticate state issued to this user,
 * and the identity that signed in at the provider one of the user's own
 * connections. Someone holding only the session cannot pass it with an
 * identity of theirs (oauth:identity_not_linked).
 */
export async function confirmIdentity(deps: OAuthDeps, input: UserCallback, context: RequestContext): Promise<ConnectionRecord> {
  const identity = await redeemUserAuthorization(deps, 'reauthenticate', input, context);
  const connection = await findConnectionByIdentity(deps.pool, input.provider, identity.providerUserId);
  if (connection?.user_id !== input.userId) throw new AppError('oauth:identity_not_linked');
  return connection;
}

export function listConnections(deps: OAuthDeps, userId: string): Promise<ConnectionRecord[]> {
  return findConnectionsOfUser(deps.pool, userId);
}

/**
 * Removes a connection and queues the `oauth_unlinked` notice, unless it is
 * the account's last way to sign in: no password, no passkey, no other
 * connection (`oauth:last_login_method`, docs/api.md, "Error codes").
 * Identity's credential ledger decides, with the account locked there,
 * before the connection is deleted (docs/architecture.md, "The credential
 * ledger"), so that removals in this unit and in passkeys are counted one
 * after the other.
 */
export async function unlinkProvider(deps: OAuthDeps, input: { userId: string; provider: ProviderName }, context: RequestContext): Promise<void> {
  const account = await getAccount(deps, input.userId, context);
  await changeCredentials(deps, connectionLedger, input.userId, async (db, ledger) => {
    const connections = await findConnectionsOfUser(db, input.userId);
    if (!connections.some((connection) => connection.provider === input.provider)) throw new AppError('oauth:connection_not_found');
    await ledger.reserveRemoval(input.provider);
    await deleteConnection(db, input.userId, input.provider);
    await queueConnectionNotice(db, account, 'oauth_unlinked', input.provider, context);
  }, context);
}

/** Account deletion: every connection of the user goes, and the SSO subjects linked to it. Idempotent. */
export async function deleteUserData(deps: OAuthDeps, userId: string): Promise<void> {
  await deleteConnectionsOfUser(deps.pool, userId);
  await deleteSsoSubjectsOfUser(deps.pool, userId);
}
