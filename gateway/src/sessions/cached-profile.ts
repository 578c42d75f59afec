import type { UserView } from '../account-view/user-view';

/**
 * The account as GET /v0/users/me last showed it (`{user}` of docs/api.md,
 * "Accounts"), kept in the session so that showing it again costs one Redis
 * read. The session store only keeps it: account-view/user-view.ts makes
 * it and session-profile.ts decides when it is too old.
 */
export interface CachedProfile {
  readonly view: UserView;
  /** When it was kept, Unix time in milliseconds. */
  readonly storedAt: number;
}
