import type { RedisClient } from '@latchkey/db';
import { z } from 'zod';
import { generateOpaqueToken, hashOpaqueToken } from '@latchkey/opaque-token';
import { providerNames } from './providers/provider';

const recordSchema = z.object({
  provider: z.enum(providerNames),
  providerUserId: z.string().min(1),
  email: z.string().min(1),
  name: z.string(),
  avatarUrl: z.string(),
  /** Kept so that a record put back after a failed completion keeps its original expiry. */
  expiresAtMs: z.number().int(),
});

/** A new user's provider data, waiting for a handle. */
export type PendingSignup = z.infer<typeof recordSchema>;

/**
 * Pending signups in Redis, under a hash of a 256-bit token, for
 * OAUTH_PENDING_SIGNUP_TTL_MINUTES (docs/api.md, "Configuration"). A completion claims the
 * record with GETDEL, so two concurrent completions cannot both create an
 * account; a completion that fails (a taken handle) puts it back.
 */
export class PendingSignups {
  constructor(
    private readonly redis: RedisClient,
    private readonly keyPrefix: string,
    private readonly ttlMinutes: number,
  ) {}

  async create(signup: Omit<PendingSignup, 'expiresAtMs'>, nowMs: number): Promise<{ token: string; expiresAt: Date }> {
    const token = generateOpaqueToken();
    const ttlMs = this.ttlMinutes * 60_000;
    const record: PendingSignup = { ...signup, expiresAtMs: nowMs + ttlMs };
    await this.redis.set(this.key(token), JSON.stringify(record), 'PX', ttlMs);
    return { token, expiresAt: new Date(record.expiresAtMs) };
  }

  /** Takes the record out; undefined for an unknown, expired or already claimed token. */
  async claim(token: string): Promise<PendingSignup | undefined> {
    const stored = token.length > 0 ? await this.redis.getdel(this.key(token)) : null;
    if (stored === null) return undefined;
    const parsed = recordSchema.safeParse(JSON.parse(stored));
    return parsed.success ? parsed.data : undefined;
  }

  /** Puts a claimed record back for the rest of its lifetime, unless that is over. */
  async restore(token: string, signup: PendingSignup, nowMs: number): Promise<void> {
    const remainingMs = signup.expiresAtMs - nowMs;
    if (remainingMs <= 0) return;
    await this.redis.set(this.key(token), JSON.stringify(signup), 'PX', remainingMs, 'NX');
  }

  private key(token: string): string {
    return `${this.keyPrefix}oauth:pending_signup:${hashOpaqueToken(token)}`;
  }
}
