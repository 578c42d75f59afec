import { randomBytes } from 'node:crypto';
import argon2 from 'argon2';
import { normalizePassword } from '@latchkey/account-fields';

export interface Argon2Parameters {
  readonly memoryKiB: number;
  readonly timeCost: number;
  readonly parallelism: number;
}

export interface PasswordCheck {
  readonly valid: boolean;
  /** The stored hash was made with other parameters and should be replaced. */
  readonly needsRehash: boolean;
}

/**
 * Argon2id hashing of NFKC-normalised passwords. A dummy hash made with the
 * same parameters lets a login for an unknown email cost the same as one
 * with a wrong password, so timing does not reveal which accounts exist.
 */
export class PasswordHasher {
  private dummyHash: Promise<string> | undefined;

  constructor(private readonly parameters: Argon2Parameters) {}

  hash(password: string): Promise<string> {
    return argon2.hash(normalizePassword(password), this.options());
  }

  async verify(hash: string, password: string): Promise<PasswordCheck> {
    let valid: boolean;
    try {
      valid = await argon2.verify(hash, normalizePassword(password));
    } catch {
      // A malformed stored hash must never let anyone in.
      return { valid: false, needsRehash: false };
    }
    return { valid, needsRehash: valid && argon2.needsRehash(hash, this.options()) };
  }

  /** Spends the time of one verification and always fails. */
  async verifyAgainstDummy(password: string): Promise<PasswordCheck> {
    this.dummyHash ??= this.hash(randomBytes(32).toString('base64url'));
    await argon2.verify(await this.dummyHash, normalizePassword(password)).catch(() => false);
    return { valid: false, needsRehash: false };
  }

  private options() {
    return {
      type: argon2.argon2id,
      memoryCost: this.parameters.memoryKiB,
      timeCost: this.parameters.timeCost,
      parallelism: this.parameters.parallelism,
    };
  }
}
