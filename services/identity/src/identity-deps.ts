import type { RedisClient } from '@latchkey/db';
import type pg from 'pg';
import type { PasswordHasher } from './password-hasher';

/** What the account operations need, built once at start. */
export interface IdentityDeps {
  readonly pool: pg.Pool;
  readonly hasher: PasswordHasher;
  /** The gateway's session store, where admin actions end sessions at once. */
  readonly sessions: { readonly redis: RedisClient; readonly keyPrefix: string };
  /** AUTH_RESET_REVOKES_METHODS_HOURS: how far back a password reset takes back added ways in. */
  readonly resetRevokesMethodsHours: number;
  /** AUTH_JWT_AUDIENCE, the service tokens' audience: no OpenID client may be registered under it. */
  readonly serviceTokenAudience: string;
  /** Token lifetimes in minutes (AUTH_*_EXPIRE_TIME). */
  readonly tokenTtlMinutes: {
    readonly verifyEmail: number;
    readonly resetPassword: number;
    readonly changeEmail: number;
  };
}
