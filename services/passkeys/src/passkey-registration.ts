import { randomUUID } from 'node:crypto';
import { changeCredentials } from '@latchkey/credential-ledger';
import { AppError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import { generateRegistrationOptions, verifyRegistrationResponse, type RegistrationResponseJSON } from '@simplewebauthn/server';
import { isoBase64URL } from '@simplewebauthn/server/helpers';
import { getAccount } from './account';
import { CHALLENGE_TTL_SECONDS } from './ceremony-challenges';
import { assertValid, checkBinding, checkPasskeyName, checkUuid, parseResponseJson } from './input-rules';
import { queuePasskeyNotice } from './mail-queue';
import { passkeyLedger } from './passkey-ledger';
import type { PasskeysDeps } from './passkeys-deps';
import { findPasskeysOfUser, insertPasskey, type StoredPasskey } from './passkey-store';
import { answersChallenge, knownTransports, SUPPORTED_ALGORITHMS, UNKNOWN_AAGUID, userHandleOf } from './webauthn-rules';

/**
 * Creation options for a new passkey of the user (docs/api.md, "Passkeys"):
 * a discoverable credential with user verification, so that it alone can
 * sign in; the user's registered credentials are excluded, so that an
 * authenticator is not registered twice.
 */
export async function beginRegistration(
  deps: PasskeysDeps,
  input: { readonly userId: string; readonly binding: string },
  context: RequestContext,
): Promise<string> {
  assertValid(checkUuid(input.userId, 'user_id'), checkBinding(input.binding));
  const [account, registered] = await Promise.all([
    getAccount(deps, input.userId, context),
    findPasskeysOfUser(deps.pool, input.userId),
  ]);
  const options = await generateRegistrationOptions({
    rpName: deps.relyingParty.name,
    rpID: deps.relyingParty.id,
    userID: userHandleOf(account.id),
    userName: account.email,
    userDisplayName: account.handle,
    attestationType: 'none',
    timeout: CHALLENGE_TTL_SECONDS * 1000,
    supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
    authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
    excludeCredentials: registered.map((passkey) => ({
      id: isoBase64URL.fromBuffer(new Uint8Array(passkey.credentialId)),
      transports: [...passkey.transports],
    })),
  });
  await deps.challenges.keep({ kind: 'registration', userId: input.userId }, input.binding, options.challenge);
  return JSON.stringify(options);
}

/**
 * Verifies the attestation against the challenge issued to this user and
 * binding, and stores the credential with the `passkey_added` notice in one
 * transaction, reserved before in identity's credential ledger and settled
 * there after (docs/architecture.md, "The credential ledger"): from the
 * moment it could sign in, the ledger counts it as a factor that proves
 * more than a password. The challenge is used up first, whatever the
 * outcome.
 */
export async function finishRegistration(
  deps: PasskeysDeps,
  input: { readonly userId: string; readonly binding: string; readonly responseJson: string; readonly name: string },
  context: RequestContext,
): Promise<StoredPasskey> {
  assertValid(
    checkUuid(input.userId, 'user_id'),
    checkBinding(input.binding),
    input.name === '' ? [] : checkPasskeyName(input.name),
  );
  const response = parseResponseJson(input.responseJson) as RegistrationResponseJSON;
  const challenge = await deps.challenges.take({ kind: 'registration', userId: input.userId }, input.binding);
  if (challenge === undefined || !answersChallenge(response, challenge)) throw new AppError('passkey:challenge_invalid');

  const registration = await verifyRegistrationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: [...deps.relyingParty.origins],
    expectedRPID: deps.relyingParty.id,
    requireUserVerification: true,
    supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
  }).catch((error: unknown) => {
    context.logger.info({ user_id: input.userId, reason: (error as Error).message }, 'passkey registration refused');
    throw new AppError('passkey:verification_failed');
  });
  if (!registration.verified) throw new AppError('passkey:verification_failed');
  const { credential, aaguid, credentialDeviceType, credentialBackedUp } = registration.registrationInfo;

  const account = await getAccount(deps, input.userId, context);
  const name = input.name.trim() || defaultName(new Date());
  const id = randomUUID();
  return changeCredentials(deps, passkeyLedger, input.userId, async (db, ledger) => {
    await ledger.reserve(id);
    const stored = await insertPasskey(db, {
      id,
      userId: input.userId,
      credentialId: Buffer.from(isoBase64URL.toBuffer(credential.id)),
      publicKey: Buffer.from(credential.publicKey),
      signCount: credential.counter,
      transports: knownTransports(credential.transports ?? response.response.transports ?? []),
      aaguid: aaguid || UNKNOWN_AAGUID,
      backupEligible: credentialDeviceType === 'multiDevice',
      backedUp: credentialBackedUp,
      name,
    });
    if (!stored) throw new AppError('passkey:already_registered');
    await queuePasskeyNotice(db, account, 'passkey_added', stored.name, context);
    return stored;
  }, context);
}

/** A name the user can tell apart until they choose one: when it was added. */
function defaultName(now: Date): string {
  return `Passkey added ${now.toISOString().slice(0, 10)}`;
}
