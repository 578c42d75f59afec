import pg from 'pg';

export interface PoolSettings {
  readonly connectionString: string;
  /** The service's own schema: unqualified names resolve there inside `withTransaction`. */
  readonly schema: string;
  readonly max?: number;
  readonly applicationName: string;
  /** Called for errors of connections not running a statement, which would otherwise crash the process. */
  readonly onIdleError: (error: Error) => void;
}

/** The schema of each pool `createPool` made, which `withTransaction` sets for its transaction. */
const schemas = new WeakMap<pg.Pool, string>();

/**
 * A pool for a service's schema. It sends no startup parameter but the
 * application name, and keeps no state on its connections, so that the URL
 * may be PgBouncer in transaction mode (which refuses `options` and
 * `statement_timeout` at connection, and hands each transaction any server
 * connection): the search path and the statement timeout are set per
 * transaction by `withTransaction` (SET LOCAL), and a statement run on the
 * pool outside a transaction names its tables with their schema.
 */
export function createPool(settings: PoolSettings): pg.Pool {
  const pool = new pg.Pool({
    connectionString: settings.connectionString,
    max: settings.max ?? 10,
    application_name: settings.applicationName,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    // A statement outside a transaction stuck behind a lock must not hold a
    // request forever; the server-side bound is the transaction's SET LOCAL.
    query_timeout: 10_000,
  });
  schemas.set(pool, quoteIdentifier(settings.schema));
  pool.on('error', settings.onIdleError);
  // A connection the server ends (a primary restarting or failing over)
  // while a caller holds it between statements, say the outbox relay
  // awaiting JetStream inside its transaction, emits an error that the pool
  // listens for only on idle connections: unheard, it would end the
  // process. The caller's next statement fails instead, and release()
  // drops the connection.
  pool.on('connect', (client) => client.on('error', settings.onIdleError));
  return pool;
}

/** The quoted schema of a pool made by `createPool`; undefined for another pool. */
export function schemaOf(pool: pg.Pool): string | undefined {
  return schemas.get(pool);
}

export function quoteIdentifier(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new TypeError(`not a plain identifier: ${name}`);
  return `"${name}"`;
}
