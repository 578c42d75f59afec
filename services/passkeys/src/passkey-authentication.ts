import { changeCredentials } from '@latchkey/credential-ledger';
import { AppError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import { generateAuthenticationOptions, verifyAuthenticationResponse, type AuthenticationResponseJSON } from '@simplewebauthn/server';
import { isoBase64URL } from '@simplewebauthn/server/helpers';
import { getAccount } from './account';
import { CHALLENGE_TTL_SECONDS } from './ceremony-challenges';
import { assertValid, checkBinding, checkUuid, parseResponseJson } from './input-rules';
import { queuePasskeyNotice } from './mail-queue';
import { passkeyLedger } from './passkey-ledger';
import type { PasskeysDeps } from './passkeys-deps';
import { findPasskeyByCredentialId, markSuspectedClone, recordUse, type StoredPasskey } from './passkey-store';
import { answersChallenge, counterWentBack, userIdOfHandle } from './webauthn-rules';

/**
 * Request options for a sign-in with a discoverable credential: no user is
 * named and no credential listed, so that the options tell nothing about
 * which accounts exist; the authenticator offers the passkeys it holds for
 * this site.
 */
export async function beginAuthentication(deps: PasskeysDeps, input: { readonly binding: string }): Promise<string> {
  assertValid(checkBinding(input.binding));
  const options = await generateAuthenticationOptions({
    rpID: deps.relyingParty.id,
    userVerification: 'required',
    timeout: CHALLENGE_TTL_SECONDS * 1000,
  });
  await deps.challenges.keep({ kind: 'authentication' }, input.binding, options.challenge);
  return JSON.stringify(options);
}

/**
 * Verifies an assertion and records the passkey's use; answers the passkey,
 * whose owner proved who they are. Every refusal is the same
 * `passkey:verification_failed` to the caller (an unknown credential tells
 * nothing more than a bad signature); the log says which check failed.
 */
export async function finishAuthentication(
  deps: PasskeysDeps,
  input: { readonly binding: string; readonly responseJson: string; readonly expectedUserId: string },
  context: RequestContext,
): Promise<StoredPasskey> {
  assertValid(checkBinding(input.binding), input.expectedUserId === '' ? [] : checkUuid(input.expectedUserId, 'expected_user_id'));
  const response = parseResponseJson(input.responseJson) as AuthenticationResponseJSON;
  const challenge = await deps.challenges.take({ kind: 'authentication' }, input.binding);
  if (challenge === undefined || !answersChallenge(response, challenge)) throw new AppError('passkey:challenge_invalid');

  const refuse = (reason: string, fields: Record<string, unknown> = {}): never => {
    context.logger.info({ ...fields, reason }, 'passkey assertion refused');
    throw new AppError('passkey:verification_failed');
  };
  if (typeof response.id !== 'string' || !isoBase64URL.isBase64URL(response.id)) return refuse('malformed credential id');
  const passkey = await findPasskeyByCredentialId(deps.pool, Buffer.from(isoBase64URL.toBuffer(response.id)));
  if (!passkey) return refuse('unknown credential');
  const owner = { user_id: passkey.userId, passkey_id: passkey.id };
  if (input.expectedUserId !== '' && passkey.userId !== input.expectedUserId) return refuse('credential of another account', owner);
  const userHandle = response.response?.userHandle;
  if (userHandle !== undefined && userIdOfHandle(userHandle) !== passkey.userId) return refuse('user handle of another account', owner);

  // The library's own counter check runs before the signature is verified;
  // it is done below instead, so that only a genuine signature counts as a clone.
  const assertion = await verifyAuthenticationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: [...deps.relyingParty.origins],
    expectedRPID: deps.relyingParty.id,
    requireUserVerification: true,
    credential: {
      id: response.id,
      publicKey: new Uint8Array(passkey.publicKey),
      counter: 0,
      transports: passkey.transports as never,
    },
  }).catch((error: unknown) => refuse((error as Error).message, owner));
  if (!assertion.verified) return refuse('signature does not verify', owner);
  // Once a copy may exist, no counter tells the copies apart: a clone reports whatever it likes.
  if (passkey.suspectedCloneAt !== null) return refuse('passkey suspected of being cloned', owner);

  const { newCounter, credentialBackedUp } = assertion.authenticationInfo;
  if (counterWentBack(passkey.signCount, newCounter)) {
    context.logger.warn(
      { ...owner, stored_sign_count: passkey.signCount, reported_sign_count: newCounter },
      'passkey signature counter went back: possible cloned authenticator',
    );
    await reportSuspectedClone(deps, passkey, context);
    throw new AppError('passkey:verification_failed');
  }
  const used = await recordUse(deps.pool, { id: passkey.id, previousSignCount: passkey.signCount, signCount: newCounter, backedUp: credentialBackedUp });
  // Another sign-in with this authenticator moved the counter, or marked the passkey, meanwhile.
  if (!used) return refuse('counter moved or passkey marked by a concurrent sign-in', owner);
  return used;
}

/**
 * Marks the passkey and, the first time, mails its owner the
 * `passkey_suspected_clone` notice, both in one transaction; then suspends
 * it in identity's credential ledger, so that it no longer counts as a
 * factor that proves more than a password (its owner replaces it with the
 * password alone). Until the ledger hears of it, it counts still, which
 * only asks more of the owner. The account is read first: with identity
 * away nothing is written and the caller hears service:unavailable, so the
 * next sign-in with the copy reports it again. A deleted account's passkey
 * (its cleanup not done yet) is marked with no one to mail.
 */
async function reportSuspectedClone(deps: PasskeysDeps, passkey: StoredPasskey, context: RequestContext): Promise<void> {
  const account = await getAccount(deps, passkey.userId, context).catch((error: unknown) => {
    if (error instanceof AppError && error.code === 'auth:unauthorized') return undefined;
    throw error;
  });
  await changeCredentials(deps, passkeyLedger, passkey.userId, async (db) => {
    if ((await markSuspectedClone(db, passkey.id)) && account) {
      await queuePasskeyNotice(db, account, 'passkey_suspected_clone', passkey.name, context);
    }
  }, context);
}
