import { changeCredentials } from '@latchkey/credential-ledger';
import { AppError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import { getAccount } from './account';
import { assertValid, checkPasskeyName, checkUuid } from './input-rules';
import { queuePasskeyNotice } from './mail-queue';
import { passkeyLedger } from './passkey-ledger';
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
 * provider (`passkey:last_login_method`). Identity's credential ledger
 * decides, with the account locked there, before the passkey is deleted
 * (docs/architecture.md, "The credential ledger"), so that removals in this
 * unit and in oauth are counted one after the other.
 */
export async function deleteUserPasskey(
  deps: PasskeysDeps,
  input: { readonly userId: string; readonly passkeyId: string },
  context: RequestContext,
): Promise<void> {
  assertValid(checkUuid(input.userId, 'user_id'), checkUuid(input.passkeyId, 'passkey_id'));
  const account = await getAccount(deps, input.userId, context);
  await changeCredentials(deps, passkeyLedger, input.userId, async (db, ledger) => {
    const doomed = (await findPasskeysOfUser(db, input.userId)).find((passkey) => passkey.id === input.passkeyId);
    if (!doomed) throw new AppError('passkey:not_found');
    await ledger.reserveRemoval(doomed.id);
    await deletePasskey(db, input.userId, doomed.id);
    await queuePasskeyNotice(db, account, 'passkey_removed', doomed.name, context);
  }, context);
}

/** Account deletion: every passkey of the user goes. Idempotent. */
export async function deleteUserData(deps: PasskeysDeps, userId: string): Promise<void> {
  assertValid(checkUuid(userId, 'user_id'));
  await deletePasskeysOfUser(deps.pool, userId);
}
