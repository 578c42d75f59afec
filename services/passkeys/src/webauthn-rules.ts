import { decodeClientDataJSON, isoBase64URL, isoUint8Array } from '@simplewebauthn/server/helpers';
import type { Uint8Array_ } from '@simplewebauthn/server';

/**
 * COSE algorithms accepted for new credentials: EdDSA, ES256 and RS256, the
 * ones authenticators in use implement. Fixed here rather than the
 * library's default, which would add algorithms as the runtime gains them.
 */
export const SUPPORTED_ALGORITHMS = [-8, -7, -257];

/** The AAGUID of authenticators that do not name their model (attestation `none`). */
export const UNKNOWN_AAGUID = '00000000-0000-0000-0000-000000000000';

const TRANSPORTS = new Set(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']);

/** The transports a browser reported, keeping only those WebAuthn defines: they are stored and shown. */
export function knownTransports(reported: readonly string[]): string[] {
  return [...new Set(reported.filter((transport) => TRANSPORTS.has(transport)))];
}

/**
 * The WebAuthn user handle of an account: its id. Opaque, as the
 * specification asks (no email or name in it), and what a discoverable
 * credential hands back at sign-in.
 */
export function userHandleOf(userId: string): Uint8Array_ {
  return isoUint8Array.fromUTF8String(userId);
}

/** The account id a user handle names, or undefined for one that is not base64url. */
export function userIdOfHandle(userHandle: string): string | undefined {
  return isoBase64URL.isBase64URL(userHandle) ? isoBase64URL.toUTF8String(userHandle) : undefined;
}

/**
 * Whether the browser answered the challenge that was kept for this
 * ceremony. An answer to another one (issued to another browser or
 * session, or replaced by a newer ceremony) is a wrong challenge, not a
 * failed verification; a client data that cannot be read is left to the
 * verification, which refuses it.
 */
export function answersChallenge(response: { readonly response?: { readonly clientDataJSON?: unknown } }, challenge: string): boolean {
  const clientDataJSON = response.response?.clientDataJSON;
  if (typeof clientDataJSON !== 'string' || !isoBase64URL.isBase64URL(clientDataJSON)) return true;
  try {
    const answered: unknown = decodeClientDataJSON(clientDataJSON).challenge;
    return typeof answered !== 'string' || answered === challenge;
  } catch {
    return true;
  }
}

/**
 * Whether a correctly signed assertion's counter shows a cloned
 * authenticator: one that keeps a counter must report more than last time
 * (WebAuthn Level 3, "Signature Counter Considerations"). Authenticators that
 * keep none (synced passkeys) always report 0.
 */
export function counterWentBack(stored: number, reported: number): boolean {
  return (stored > 0 || reported > 0) && reported <= stored;
}
