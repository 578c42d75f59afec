import type { FastifyRequest } from 'fastify';
import { AppError } from '@latchkey/errors';
import { clientKeyOf } from '../limits/client-address';
import type { LoginFailures } from '../limits/login-failures';

/** Wrong user codes one account may enter from one address, and from all, in the window. */
export const DEVICE_CODE_GUESSES = { perClient: 5, perAccount: 20, windowSeconds: 15 * 60 } as const;

/**
 * A user code is short (8 letters of 20), so entering codes is guessing
 * one (RFC 8628, section 5.1): each wrong code counts against the signed-in
 * account from its address and from all addresses, like wrong passwords,
 * and once either count is full the account enters no more codes until the
 * window ends (429). The per-address limit of the route bounds an address
 * across accounts.
 */
export class DeviceCodeGuesses {
  constructor(
    private readonly misses: LoginFailures,
    private readonly ipv6PrefixLength: number,
  ) {}

  /** Runs the look-up of a user code for `userId`; `oidc:user_code_invalid` counts as a miss, anything else does not. */
  async check<T>(userId: string, request: FastifyRequest, lookUp: () => Promise<T>): Promise<T> {
    const client = clientKeyOf(request.ip, this.ipv6PrefixLength);
    const decision = await this.misses.reserve(userId, client);
    if (!decision.allowed) throw new AppError('rate_limit:exceeded', undefined, { retryAfterSeconds: decision.retryAfterSeconds });
    try {
      const found = await lookUp();
      await this.misses.giveBack(userId, client);
      return found;
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'oidc:user_code_invalid')) await this.misses.giveBack(userId, client);
      throw error;
    }
  }
}
