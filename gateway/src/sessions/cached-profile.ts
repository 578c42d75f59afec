import type { z } from 'zod';
import type { userSchema } from '../accounts/account-schemas';

/**
 * The account as GET /v0/users/me last showed it (`{user}` of docs/api.md,
 * "Accounts"), kept in the session so that showing it again costs one Redis
 * read. The session only keeps it: accounts/user-view.ts makes it and
 * decides when it is too old.
 */
export interface CachedProfile {
  readonly view: z.output<typeof userSchema>;
  /** When it was kept, Unix time in milliseconds. */
  readonly storedAt: number;
}
