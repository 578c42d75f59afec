import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '@latchkey/test-kit';
import { withTransaction, type TimeBudget } from './transaction';

let database: TestDatabase;
let pool: pg.Pool;

function budget(ms: number): TimeBudget & { abort(): void } {
  const controller = new AbortController();
  return { deadline: Date.now() + ms, signal: controller.signal, abort: () => controller.abort(new Error('caller gave up')) };
}

async function count(): Promise<number> {
  const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM notes');
  return rows[0]!.n;
}

beforeAll(async () => {
  database = await createTestDatabase('transaction');
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  await pool.query('CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL)');
});

afterAll(async () => {
  await pool.end();
  await database.drop();
});

beforeEach(async () => {
  await pool.query('TRUNCATE notes');
});

describe('withTransaction()', () => {
  it('commits the work when it resolves within the budget', async () => {
    await withTransaction(pool, budget(5_000), (db) => db.query("INSERT INTO notes (body) VALUES ('kept')"));
    expect(await count()).toBe(1);
  });

  it('rolls the work back when the budget aborts before COMMIT, so a caller that gave up finds nothing written', async () => {
    const spent = budget(5_000);
    await expect(
      withTransaction(pool, spent, async (db) => {
        await db.query("INSERT INTO notes (body) VALUES ('lost')");
        spent.abort();
      }),
    ).rejects.toThrow('caller gave up');
    expect(await count()).toBe(0);
  });

  it('does not start work for a budget that already aborted', async () => {
    const spent = budget(5_000);
    spent.abort();
    const work = jest.fn();
    await expect(withTransaction(pool, spent, work)).rejects.toThrow('caller gave up');
    expect(work).not.toHaveBeenCalled();
  });

  it('cancels a statement that would outlast the budget (SQLSTATE 57014)', async () => {
    const started = Date.now();
    await expect(withTransaction(pool, budget(200), (db) => db.query('SELECT pg_sleep(5)'))).rejects.toMatchObject({
      code: '57014',
    });
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
