import type pg from 'pg';
import { schemaOf } from './pool';

/**
 * The time a piece of work may take: the request context of
 * `@latchkey/grpc-kit` is one. Kept structural so that the database layer
 * does not depend on the gRPC one.
 */
export interface TimeBudget {
  /** Unix time in milliseconds after which nobody waits for the result. */
  readonly deadline: number;
  /** Aborts when the budget is spent or the caller gave up. */
  readonly signal: AbortSignal;
}

/**
 * Runs `work` in one transaction: committed when it resolves, rolled back
 * when it throws. Its statements may run only until the budget's deadline,
 * and a budget that aborted before COMMIT rolls the work back: a caller that
 * gave up (and answered 503) must find nothing changed. Unqualified names
 * resolve in the pool's schema (`createPool`): the setting lives as long as
 * the transaction, as PgBouncer in transaction mode requires.
 */
export async function withTransaction<T>(
  pool: pg.Pool,
  budget: TimeBudget,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  budget.signal.throwIfAborted();
  const client = await pool.connect();
  try {
    // One round trip: the simple query protocol runs every statement.
    const schema = schemaOf(pool);
    const searchPath = schema === undefined ? '' : `; SET LOCAL search_path TO ${schema}`;
    await client.query(`BEGIN; SET LOCAL statement_timeout = ${String(statementTimeoutMs(budget))}${searchPath}`);
    const result = await work(client);
    budget.signal.throwIfAborted();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** What is left of the budget, at least 1 ms: PostgreSQL reads 0 as "no timeout". */
function statementTimeoutMs(budget: TimeBudget): number {
  return Math.max(1, Math.ceil(budget.deadline - Date.now()));
}

/** Whether an error is PostgreSQL's unique violation, optionally of one constraint. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = error as { code?: unknown; constraint?: unknown };
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}
