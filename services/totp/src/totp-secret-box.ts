import { SecretBox } from '@latchkey/secret-box';

/** What TOTP keys seal; part of every stored key id, so it never changes. */
export const TOTP_KEY_PURPOSE = 'totp';

/** The box that seals TOTP secrets under TOTP_ENCRYPTION_KEY and the previous keys. */
export function createTotpSecretBox(currentKey: Buffer, previousKeys: readonly Buffer[]): SecretBox {
  return new SecretBox(TOTP_KEY_PURPOSE, currentKey, previousKeys);
}

/** The additional authenticated data that binds a TOTP secret to its owner. */
export function secretContext(userId: string): string {
  return `latchkey/totp/secret/v1:${userId}`;
}
