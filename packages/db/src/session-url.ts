/** How a unit reaches PostgreSQL, as packages/config's `databaseVariables` parse it. */
export interface DatabaseUrls {
  readonly DATABASE_URL: string;
  readonly DATABASE_SESSION_URL?: string | undefined;
}

/**
 * DATABASE_URL may be PgBouncer in transaction mode, which cannot hold what
 * lives across statements (the migrations' advisory lock, the outbox's
 * LISTEN): those connect to DATABASE_SESSION_URL when the installation
 * gives one.
 */
export function sessionUrlOf(urls: DatabaseUrls): string {
  return urls.DATABASE_SESSION_URL ?? urls.DATABASE_URL;
}
