import type { RequestContext } from '@latchkey/grpc-kit';
import type { identityV1 } from '@latchkey/contracts';
import { AppError } from '@latchkey/errors';
import { withTransaction } from '@latchkey/db';
import { listOwnedMethods, removeOwnedMethod } from '@latchkey/sign-in-methods';
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
import { connectionKey, connectionLedger, connectionMethod } from './connection-ledger';
import { queueConnectionNotice } from './mail-queue';
import type { OAuthDeps } from './oauth-deps';
import type { ProviderIdentity, ProviderName } from './providers/provider';

/**
 * The provider email as docs/api.md, "Sign-in with a provider (OAuth)", defines it, or oauth:email_not_verified:
 * an address the provider does not vouch for never links or creates anything.
 */
export function verifiedEmail(identity: ProviderIdentity): string {
  if (!identity.emailVerified || identity.email === undefined) throw new AppError('oauth:email_not_verified');
  return identity.email;
}

/** The account from identity.v1; auth:unauthorized when it does not exist. */
export async function getAccount(deps: OAuthDeps, userId: string, context: RequestContext): Promise<identityV1.User> {
  const { user } = await deps.identity.getUser({ userId }, context);
  if (!user) throw new AppError('auth:unauthorized');
  return user;
}

/** The account from identity.v1, or undefined when it was deleted. */
export async function findAccount(deps: OAuthDeps, userId: string, context: RequestContext): Promise<identityV1.User | undefined> {
  try {
    return await getAccount(deps, userId, context);
  } catch (error) {
    if (error instanceof AppError && error.code === 'auth:unauthorized') return undefined;
    throw error;
  }
}

/**
 * Lists a new connection in identity's ledger of sign-in methods before the
 * call that made it answers (docs/architecture.md, "Sign-in methods").
 * Should that fail, the connection works unlisted, which only refuses
 * removals sooner, until the sweep lists it.
 */
export async function listConnection(deps: OAuthDeps, userId: string, provider: ProviderName, context: RequestContext): Promise<void> {
  await listOwnedMethods(deps, connectionLedger, context, connectionKey(userId, provider)).catch((error: unknown) =>
    context.logger.warn({ err: error, user_id: userId, provider }, 'could not list a new connection in the ledger; the sweep will'),
  );
}

/**
 * Adds a connection and queues the `oauth_linked` notice to the account's
 * address in one transaction, then lists it in identity's ledger. A
 * provider identity belongs to one account, and an account has one
 * identity per provider: oauth:already_linked.
 */
export async function addConnection(
  deps: OAuthDeps,
  account: identityV1.User,
  connection: { provider: ProviderName; providerUserId: string; email: string },
  context: RequestContext,
): Promise<ConnectionRecord> {
  let created: ConnectionRecord;
  try {
    created = await withTransaction(deps.pool, context, async (db) => {
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
      const created = await insertConnection(db, { ...connection, userId: account.id });
      await queueConnectionNotice(db, account, 'oauth_linked', connection.provider, context);
      return created;
    });
  } catch (error) {
    throw connectionConflict(error) ?? error;
  }
  await listConnection(deps, account.id, connection.provider, context);
  return created;
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
 * Identity's ledger of sign-in methods decides, with the account locked,
 * before the connection is deleted (docs/architecture.md, "Sign-in
 * methods"), so that removals in this unit and in passkeys are counted one
 * after the other.
 */
export async function unlinkProvider(deps: OAuthDeps, input: { userId: string; provider: ProviderName }, context: RequestContext): Promise<void> {
  const account = await getAccount(deps, input.userId, context);
  const notFound = () => new AppError('oauth:connection_not_found');
  // Asking identity about a connection that does not exist would list it there.
  const connections = await findConnectionsOfUser(deps.pool, input.userId);
  if (!connections.some((connection) => connection.provider === input.provider)) throw notFound();
  const deleted = await removeOwnedMethod(
    deps.identity,
    connectionMethod(input.userId, input.provider),
    () =>
      withTransaction(deps.pool, context, async (db) => {
        if (!(await deleteConnection(db, input.userId, input.provider))) return false;
        await queueConnectionNotice(db, account, 'oauth_unlinked', input.provider, context);
        return true;
      }),
    context,
  );
  // Another unlink of the same connection went first.
  if (!deleted) throw notFound();
}

/** Account deletion: every connection of the user goes. Idempotent. */
export async function deleteUserData(deps: OAuthDeps, userId: string): Promise<void> {
  await deleteConnectionsOfUser(deps.pool, userId);
}
