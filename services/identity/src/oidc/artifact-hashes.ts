import { opaqueTokenDigest } from '@latchkey/opaque-token';
import type { ArtifactKind } from './artifact-kinds';

/**
 * What identity keeps of the provider's codes and tokens: their SHA-256,
 * never their value (docs/security.md, "What is stored hashed, sealed or
 * plain"). Authorization codes, device codes, access and refresh tokens are
 * 256 random bits or more, which no fast hash makes guessable, so SHA-256
 * protects them as well as a slow hash would; the provider gets the value
 * back from whoever presents it. A row is found only by hashing what a
 * caller presents, so a value read from the database (its hash) finds
 * nothing. Hex, not the base64url of the other tokens' hashes: the
 * provider's values are themselves 43 base64url characters, and only a
 * different form lets the schema refuse a value in clear (migration 011).
 */
function sha256Hex(value: string): string {
  return opaqueTokenDigest(value).toString('hex');
}

/**
 * The key a row is stored and found under. A grant stays under its id: a
 * grant id is no credential (no endpoint takes one from a caller, and the
 * provider reads a grant only through a code or token it found, or the
 * account's own grant for a client), and codes and tokens name their grant
 * by it, which revocation follows.
 */
export function storedIdOf(kind: ArtifactKind, id: string): string {
  return kind === 'Grant' ? id : sha256Hex(id);
}

/**
 * A device code's user code, as stored and looked up: its SHA-256, not a
 * keyed hash. A user code has only 35 bits (8 letters of 20), so its hash
 * can be reversed by trying them all, in seconds on a graphics card. A key
 * kept outside the database would prevent that, but it would be a new
 * secret for identity to distribute and rotate, for little: a reversed user
 * code gives no token (the tokens go to the device code, 256 random bits
 * hashed above), only the chance to let the waiting device into one's own
 * account, or to refuse it, within the ten minutes the code lives and
 * before the person typing it does. So a dump holds no user code in clear,
 * and one read more than ten minutes after it was taken holds none that
 * still works.
 */
export function userCodeHashOf(userCode: string): string {
  return sha256Hex(userCode);
}

/** The provider's payload as stored: without the token value (jti) and the user code, which the row's keys hold hashed. */
export function storedPayloadOf(kind: ArtifactKind, payload: Record<string, unknown>): Record<string, unknown> {
  if (kind === 'Grant') return payload;
  const { jti: _value, userCode: _userCode, ...stored } = payload;
  return stored;
}

/**
 * The payload as the provider reads it back, with the value it was found by:
 * the id the caller presented as jti, or the user code it presented (the
 * provider checks it), and then no jti, since the device code's value is
 * kept nowhere.
 */
export function presentedPayloadOf(
  kind: ArtifactKind,
  stored: Record<string, unknown>,
  foundBy: { readonly id: string } | { readonly userCode: string },
): Record<string, unknown> {
  if (kind === 'Grant') return stored;
  return 'userCode' in foundBy ? { ...stored, userCode: foundBy.userCode } : { ...stored, jti: foundBy.id };
}
