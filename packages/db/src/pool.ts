import pg from 'pg';

export interface PoolSettings {
  readonly connectionString: string;
  /** The service's own schema: unqualified names resolve there. */
  readonly schema: string;
  readonly max?: number;
  readonly applicationName: string;
  /** Called for errors of idle clients, which would otherwise crash the process. */
  readonly onIdleError: (error: Error) => void;
}

/** A pool whose connections see the service's schema first. */
export function createPool(settings: PoolSettings): pg.Pool {
  const pool = new pg.Pool({
    connectionString: settings.connectionString,
    max: settings.max ?? 10,
    application_name: settings.applicationName,
    options: `-c search_path=${quoteIdentifier(settings.schema)}`,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    // A query stuck behind a lock must not hold a request forever.
    statement_timeout: 10_000,
  });
  pool.on('error', settings.onIdleError);
  return pool;
}

export function quoteIdentifier(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new TypeError(`not a plain identifier: ${name}`);
  return `"${name}"`;
}
