import { browserSupportsWebAuthn, startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { api, ApiError, unwrap } from './api';

export const passkeysSupported = (): boolean => browserSupportsWebAuthn();

/** What the browser says when the user closes the prompt, or no authenticator answers, as the app shows it. */
function ceremonyError(error: unknown): ApiError {
  const name = error instanceof Error ? error.name : '';
  const detail =
    name === 'NotAllowedError'
      ? 'The passkey prompt was closed or timed out.'
      : name === 'InvalidStateError'
        ? 'This authenticator already holds a passkey for this account.'
        : error instanceof Error
          ? error.message
          : String(error);
  return new ApiError({ title: 'No passkey was used.', status: 0, code: 'passkey:verification_failed', detail });
}

/**
 * Asks the browser for an assertion of any passkey it holds for this site
 * (docs/api.md, "Passkeys"): the answer for sign-in or re-authentication.
 * The options set this browser's binding cookie.
 */
export async function passkeyAssertion(): Promise<Record<string, unknown>> {
  const options = await unwrap(api.POST('/v0/auth/passkeys/authentication/options'));
  try {
    return (await startAuthentication({ optionsJSON: options as never })) as unknown as Record<string, unknown>;
  } catch (error) {
    throw ceremonyError(error);
  }
}

/** Creates a passkey for the signed-in account and registers it under `name`. */
export async function addPasskey(name: string) {
  const options = await unwrap(api.POST('/v0/auth/passkeys/registration/options'));
  let response: Record<string, unknown>;
  try {
    response = (await startRegistration({ optionsJSON: options as never })) as unknown as Record<string, unknown>;
  } catch (error) {
    throw ceremonyError(error);
  }
  return unwrap(
    api.POST('/v0/auth/passkeys/registration/verify', { body: { response: response as never, ...(name.trim() ? { name: name.trim() } : {}) } }),
  );
}
