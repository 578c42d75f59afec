import { AppError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import { withTransaction } from '@latchkey/db';
import { removeOwnedMethod } from '@latchkey/sign-in-methods';
import { getAccount } from './account';
import { assertValid, checkPasskeyName, checkUuid } from './input-rules';
import { queuePasskeyNotice } from './mail-queue';
import { passkeyMethod } from './passkey-ledger';
import type { PasskeysDeps } from './passkeys-deps';
import {
  deletePasskey,
  deletePasskeysOfUser,
  findPasskeysOfUser,
  renamePasskey,
  type StoredPasskey,
} from './passkey-store';

export async function listPasskeys(deps: PasskeysDeps, userId: string): Promise<StoredPasskey[]> {
  assertValid(checkUuid(userId, 'user_id'));
  return findPasskeysOfUser(deps.pool, userId);
}

export async function renameUserPasskey(
  deps: PasskeysDeps,
  input: { readonly userId: string; readonly passkeyId: string; readonly name: string },
): Promise<StoredPasskey> {
  assertValid(checkUuid(input.userId, 'user_id'), checkUuid(input.passkeyId, 'passkey_id'), checkPasskeyName(input.name));
  const renamed = await renamePasskey(deps.pool, input.userId, input.passkeyId, input.name.trim());
  if (!renamed) throw new AppError('passkey:not_found');
  return renamed;
}

/**
 * Removes a passkey and queues the `passkey_removed` notice, unless nothing
 * else would sign in to the account: no other passkey, no password, no
 * provider (`passkey:last_login_method`). Identity's ledger of sign-in
 * methods decides, with the account locked, before the passkey is deleted
 * (docs/architecture.md, "Sign-in methods"), so that removals in this unit
 * and in oauth are counted one after the other.
 */
export async function deleteUserPasskey(
  deps: PasskeysDeps,
  input: { readonly userId: string; readonly passkeyId: string },
  context: RequestContext,
): Promise<void> {
  assertValid(checkUuid(input.userId, 'user_id'), checkUuid(input.passkeyId, 'passkey_id'));
  const account = await getAccount(deps, input.userId, context);
  // Asking identity about a passkey that does not exist would list it there.
  const owned = await findPasskeysOfUser(deps.pool, input.userId);
  if (!owned.some((passkey) => passkey.id === input.passkeyId)) throw new AppError('passkey:not_found');
  const deleted = await removeOwnedMethod(
    deps.identity,
    passkeyMethod(input.userId, input.passkeyId),
    () =>
      withTransaction(deps.pool, context, async (db) => {
        const doomed = (await findPasskeysOfUser(db, input.userId, true)).find((passkey) => passkey.id === input.passkeyId);
        if (!doomed) return false;
        await deletePasskey(db, input.userId, doomed.id);
        await queuePasskeyNotice(db, account, 'passkey_removed', doomed.name, context);
        return true;
      }),
    context,
  );
  // Another deletion of the same passkey went first.
  if (!deleted) throw new AppError('passkey:not_found');
}

/** Account deletion: every passkey of the user goes. Idempotent. */
export async function deleteUserData(deps: PasskeysDeps, userId: string): Promise<void> {
  assertValid(checkUuid(userId, 'user_id'));
  await deletePasskeysOfUser(deps.pool, userId);
}
