import type { MeView } from '../account-view/user-view';

/**
 * The account as GET /v0/users/me last showed it (`{user}` of docs/api.md,
 * "Accounts", with the session's active organisation), kept in the session so that showing it again costs one Redis
 * read. The session store only keeps it: account-view/user-view.ts makes
 * it and session-profile.ts decides when it is too old.
 */
export interface CachedProfile {
  readonly view: MeView;
  /** When it was kept, Unix time in milliseconds. */
  readonly storedAt: number;
}
