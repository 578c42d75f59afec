import type { RedisClient } from '@latchkey/db';
import { timingSafeEqual } from 'node:crypto';
import * as client from 'openid-client';
import { z } from 'zod';
import { AppError } from '@latchkey/errors';
import { generateOpaqueToken, hashOpaqueToken } from '@latchkey/opaque-token';
import { providerNames, type AuthorizationSecrets, type ProviderName } from './providers/provider';

export const authorizationPurposes = ['login', 'link', 'reauthenticate'] as const;
export type AuthorizationPurpose = (typeof authorizationPurposes)[number];

/** What a state is bound to: it works only for the same provider, purpose, user agent and (but for login) user. */
export interface StateBinding {
  readonly provider: ProviderName;
  readonly purpose: AuthorizationPurpose;
  /** The signed-in user, for `link` and `reauthenticate`. */
  readonly userId?: string | undefined;
  /** A hash of the secret the user agent that asked for the state holds. */
  readonly browserBinding: string;
}

function sameBinding(stored: string, presented: string): boolean {
  const a = Buffer.from(stored);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}

const recordSchema = z.object({
  provider: z.enum(providerNames),
  purpose: z.enum(authorizationPurposes),
  userId: z.string().optional(),
  browserBinding: z.string().min(1),
  codeVerifier: z.string().min(43),
  nonce: z.string().min(1),
});

/**
 * OAuth states in Redis (RFC 6749 §10.12: the client's CSRF defence). A
 * state is 256 random bits; its record holds what it is bound to and the
 * secrets of its authorization request, under a hash of the state, for
 * OAUTH_STATE_TTL_SECONDS. GETDEL makes it single-use even under concurrent
 * requests: only one of them reads the record.
 */
export class OAuthStates {
  constructor(
    private readonly redis: RedisClient,
    private readonly keyPrefix: string,
    private readonly ttlSeconds: number,
  ) {}

  /** Stores a new state with a fresh PKCE verifier and nonce. */
  async issue(binding: StateBinding, nowMs: number): Promise<{ secrets: AuthorizationSecrets; expiresAt: Date }> {
    const secrets: AuthorizationSecrets = {
      state: generateOpaqueToken(),
      codeVerifier: client.randomPKCECodeVerifier(),
      nonce: client.randomNonce(),
    };
    const record: z.input<typeof recordSchema> = {
      provider: binding.provider,
      purpose: binding.purpose,
      userId: binding.userId,
      browserBinding: binding.browserBinding,
      codeVerifier: secrets.codeVerifier,
      nonce: secrets.nonce,
    };
    await this.redis.set(this.key(secrets.state), JSON.stringify(record), 'EX', this.ttlSeconds);
    return { secrets, expiresAt: new Date(nowMs + this.ttlSeconds * 1000) };
  }

  /**
   * Uses a state up and returns its secrets. An unknown, expired or used
   * state, or one bound to something else, is oauth:state_invalid; a
   * mismatched state is used up all the same, so it cannot be tried again.
   */
  async redeem(state: string, expected: StateBinding): Promise<AuthorizationSecrets> {
    const stored = state.length > 0 ? await this.redis.getdel(this.key(state)) : null;
    const parsed = stored === null ? undefined : recordSchema.safeParse(JSON.parse(stored));
    const record = parsed?.success ? parsed.data : undefined;
    const matches =
      record !== undefined &&
      record.provider === expected.provider &&
      record.purpose === expected.purpose &&
      sameBinding(record.browserBinding, expected.browserBinding) &&
      (record.purpose === 'login' || record.userId === expected.userId);
    if (!matches) throw new AppError('oauth:state_invalid');
    return { state, codeVerifier: record.codeVerifier, nonce: record.nonce };
  }

  private key(state: string): string {
    return `${this.keyPrefix}oauth:state:${hashOpaqueToken(state)}`;
  }
}
