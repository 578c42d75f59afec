import type { RequestContext } from '@latchkey/grpc-kit';
import { identityV1 } from '@latchkey/contracts';
import { changeCredentials } from '@latchkey/credential-ledger';
import { AppError } from '@latchkey/errors';
import { redeemAuthorization } from './authorization';
import { connectionLedger } from './connection-ledger';
import { connectionConflict, deleteConnection, findConnectionByIdentity, insertConnection } from './connection-store';
import type { OAuthDeps } from './oauth-deps';
import { addConnection, findAccount, getAccount, verifiedEmail } from './provider-linking';
import type { ProviderIdentity, ProviderName } from './providers/provider';

/**
 * A Google or GitHub sign-in: identity refuses it for an email whose
 * organisation enforces SSO (auth:sso_required), account or not. Unnamed
 * where no member signs in yet (a look-up by email, a new account).
 */
const PROVIDER_SIGN_IN = identityV1.SignInMethod.SIGN_IN_METHOD_PROVIDER;

/** The account that signs in, named to identity by its provider: identity records the sign-in in the account's organisations' audit logs (docs/audit.md). */
const SIGN_IN_BY: Record<ProviderName, identityV1.SignInMethod> = {
  google: identityV1.SignInMethod.SIGN_IN_METHOD_GOOGLE,
  github: identityV1.SignInMethod.SIGN_IN_METHOD_GITHUB,
};

export type LoginOutcome =
  | {
      readonly kind: 'signed_in';
      readonly user: identityV1.User;
      readonly linkedNow: boolean;
      /** Linking dropped a password that predates the email's verification (identity.v1 PrepareProviderLink). */
      readonly passwordDropped: boolean;
    }
  | {
      readonly kind: 'pending_signup';
      readonly pendingToken: string;
      readonly email: string;
      readonly name: string;
      readonly avatarUrl: string;
      readonly expiresAt: Date;
    };

/** Completes a login: uses the state up, exchanges the code, resolves the user. */
export async function completeLogin(
  deps: OAuthDeps,
  input: { provider: ProviderName; code: string; state: string; browserBinding: string },
  context: RequestContext,
): Promise<LoginOutcome> {
  const identity = await redeemAuthorization(
    deps,
    { provider: input.provider, purpose: 'login', browserBinding: input.browserBinding },
    input,
    context,
  );
  return resolveUser(deps, input.provider, identity, context);
}

/**
 * How a provider sign-in finds its account (docs/api.md, "Sign-in with a provider (OAuth)"):
 * a known provider identity signs in; else an account with the provider's
 * verified email gets the connection and signs in; else a pending signup.
 * A connection whose account was deleted counts as absent (the cleanup job
 * removes it in its own time): it goes now, and the identity may sign up
 * again.
 */
async function resolveUser(
  deps: OAuthDeps,
  provider: ProviderName,
  identity: ProviderIdentity,
  context: RequestContext,
): Promise<LoginOutcome> {
  const known = await findConnectionByIdentity(deps.pool, provider, identity.providerUserId);
  if (known) {
    const account = await findAccount(deps, known.user_id, context, SIGN_IN_BY[provider]);
    if (account) return { kind: 'signed_in', user: account, linkedNow: false, passwordDropped: false };
    await deleteConnection(deps.pool, known.user_id, provider);
  }

  const email = verifiedEmail(identity);
  const { user } = await deps.identity.getUserByEmail({ email, signIn: PROVIDER_SIGN_IN }, context);
  if (user) {
    const linked = await linkAutomatically(deps, user, { provider, providerUserId: identity.providerUserId, email }, context);
    // Linked: the account signs in now, and identity learns it by the provider's name.
    const account = await getAccount(deps, linked.user.id, context, SIGN_IN_BY[provider]);
    return { kind: 'signed_in', user: account, linkedNow: true, passwordDropped: linked.passwordDropped };
  }

  const signup = { provider, providerUserId: identity.providerUserId, email, name: identity.name, avatarUrl: identity.avatarUrl };
  const { token, expiresAt } = await deps.pendingSignups.create(signup, deps.now());
  return { kind: 'pending_signup', pendingToken: token, email, name: signup.name, avatarUrl: signup.avatarUrl, expiresAt };
}

/**
 * Links by email only when both sides vouch for the address. The account's
 * own email must be verified as well, and a password set before it was
 * verified is dropped first (identity.v1 PrepareProviderLink): otherwise
 * whoever registered the address without owning it (and knows that
 * account's password) would share the account the real owner signs into
 * with the provider, the "pre-account takeover" of Sudhodanan and Paverd
 * (USENIX Security 2022). Identity commits first: should the connection then
 * fail, the owner has lost nothing but a password they are mailed a link to
 * set again.
 */
async function linkAutomatically(
  deps: OAuthDeps,
  account: identityV1.User,
  connection: { provider: ProviderName; providerUserId: string; email: string },
  context: RequestContext,
): Promise<{ user: identityV1.User; passwordDropped: boolean }> {
  if (!account.emailVerifiedAt) {
    throw new AppError(
      'oauth:email_not_verified',
      'The account with this email address has not verified it yet; sign in with the password and verify the email first.',
    );
  }
  const { user, passwordDropped } = await deps.identity.prepareProviderLink({ userId: account.id, provider: connection.provider }, context);
  if (!user) throw new Error('identity.v1 PrepareProviderLink answered without a user');
  await addConnection(deps, user, connection, context);
  return { user, passwordDropped };
}

/**
 * Creates the account of a pending signup through identity.v1 (verified,
 * without a password) and its connection. The record is claimed first, so
 * that two concurrent completions cannot both create an account, and put
 * back when the account could not be created (a taken handle), so that the
 * user can try another one.
 *
 * Identity and this service commit separately. Should the connection fail
 * to commit after the account was created, the account is left verified and
 * without a connection: the next sign-in with the same provider links it
 * automatically by its provider-verified email, so nobody is locked out.
 */
export async function completeSignup(
  deps: OAuthDeps,
  input: { pendingToken: string; handle: string },
  context: RequestContext,
): Promise<identityV1.User> {
  const pending = await deps.pendingSignups.claim(input.pendingToken);
  if (!pending) throw new AppError('oauth:pending_signup_invalid');

  let account: identityV1.User | undefined;
  try {
    if (await findConnectionByIdentity(deps.pool, pending.provider, pending.providerUserId)) {
      throw new AppError('oauth:already_linked', 'This identity was linked to an account meanwhile; sign in instead.');
    }
    ({ user: account } = await deps.identity.createVerifiedUser({ handle: input.handle, email: pending.email, signIn: PROVIDER_SIGN_IN }, context));
    if (!account) throw new Error('identity.v1 CreateVerifiedUser answered without a user');
  } catch (error) {
    const retryable = !(error instanceof AppError && error.code === 'oauth:already_linked');
    if (retryable) {
      await deps.pendingSignups
        .restore(input.pendingToken, pending, deps.now())
        .catch((restoreError: unknown) => context.logger.warn({ err: restoreError }, 'could not put a pending signup back'));
    }
    throw error;
  }

  const userId = account.id;
  await changeCredentials(deps, connectionLedger, userId, async (db, ledger) => {
    await ledger.reserve(pending.provider, { openedAccount: true });
    await insertConnection(db, {
      provider: pending.provider,
      providerUserId: pending.providerUserId,
      userId,
      email: pending.email,
      createdAccount: true,
    });
  }, context).catch((error: unknown) => {
    throw connectionConflict(error) ?? error;
  });
  return account;
}
