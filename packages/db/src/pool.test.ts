import pg from 'pg';
import { createTestDatabase, waitFor, type TestDatabase } from '@latchkey/test-kit';
import { createPool } from './pool';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase('pool');
});

afterAll(async () => {
  await database.drop();
});

describe('createPool()', () => {
  it('survives the server ending a connection a caller holds between statements, and drops it', async () => {
    const errors: Error[] = [];
    const pool = createPool({ connectionString: database.url, schema: 'public', max: 2, applicationName: 'pool-test-held', onIdleError: (error) => errors.push(error) });
    try {
      const held = await pool.connect();
      const { rows } = await held.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // What a primary's fast shutdown does to every connection: terminated from the server side.
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      await admin.end();
      // Unheard, this error would have ended the process here.
      await waitFor(() => (errors.length > 0 ? true : undefined), { description: 'the held connection to report its end' });
      const failed = await held.query('SELECT 1').then(() => false, () => true);
      held.release();
      expect(failed).toBe(true);
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]).toEqual({ one: 1 });
    } finally {
      await pool.end();
    }
  });

  it('sends no startup parameter PgBouncer refuses: the search path is the server default outside a transaction', async () => {
    const pool = createPool({ connectionString: database.url, schema: 'somewhere_else', applicationName: 'pool-test-params', onIdleError: () => undefined });
    try {
      const { rows } = await pool.query<{ path: string; timeout: string }>("SELECT current_setting('search_path') AS path, current_setting('statement_timeout') AS timeout");
      expect(rows[0]).toEqual({ path: '"$user", public', timeout: '0' });
    } finally {
      await pool.end();
    }
  });
});
