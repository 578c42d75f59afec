import pg from 'pg';
import { waitFor } from '@latchkey/test-kit';
import { units } from '@latchkey/units';
import { signedInAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';

/**
 * docs/operations.md, "A PostgreSQL role per unit", as the stack runs every
 * end-to-end test: each unit connects as a role of its own, which owns the
 * unit's schemas, reads the schemas it reads (posts: the search index the
 * worker keeps) and cannot touch any other. So a unit taken over, or its
 * database password leaked, reads no other unit's rows.
 */
let stack: E2eStack;
let admin: pg.Client;

beforeAll(async () => {
  stack = await startE2eStack('dbroles');
  admin = new pg.Client({ connectionString: stack.env.DATABASE_URL });
  await admin.connect();
}, 60_000);

afterAll(async () => {
  await admin?.end();
  await stack?.destroy();
});

const onPostgres = units.filter((unit) => unit.database !== undefined);
const schemas = onPostgres.flatMap((unit) => unit.database!.owns);

/** PostgreSQL's SQLSTATE for a right the role does not have. */
const INSUFFICIENT_PRIVILEGE = '42501';

/** The SQLSTATE `sql` fails with as `unit`'s role, or `ok`. */
async function outcomeAs(unit: string, sql: string): Promise<string> {
  const client = new pg.Client({ connectionString: stack.databaseUrls[unit] });
  await client.connect();
  try {
    await client.query(sql);
    return 'ok';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  } finally {
    await client.end();
  }
}

describe('a PostgreSQL role per unit', () => {
  it('is what every unit connects as, and no unit connects as the administrator', async () => {
    // Something in every unit's schema, written by the unit itself: an account, a post and its search document.
    const account = await signedInAccount(stack, 'dbroles');
    expect((await account.client.post('/v0/posts', { title: 'Roles', content: 'each unit its own' })).status).toBe(201);
    await waitFor(async () => ((await account.client.get('/v0/search/posts?q=unit')).body.items as unknown[] | undefined)?.length ? true : undefined, {
      description: 'the worker to index the post',
    });
    const { rows } = await admin.query<{ usename: string }>(
      'SELECT DISTINCT usename FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    const roles = Object.fromEntries(onPostgres.map((unit) => [`${new URL(stack.databaseUrls[unit.name]!).username}`, unit.name]));
    expect(rows.length).toBeGreaterThan(0);
    for (const { usename } of rows) expect({ usename, unit: roles[usename] }).toEqual({ usename, unit: expect.any(String) });
    const owners = await admin.query<{ nspname: string; owner: string }>(
      'SELECT nspname, pg_get_userbyid(nspowner) AS owner FROM pg_namespace WHERE nspname = ANY ($1)',
      [schemas],
    );
    expect(Object.fromEntries(owners.rows.map((row) => [row.nspname, roles[row.owner]]))).toEqual(
      Object.fromEntries(onPostgres.flatMap((unit) => unit.database!.owns.map((schema) => [schema, unit.name]))),
    );
  });

  it('reads its own schemas and those it reads, and no other: posts cannot select identity.users', async () => {
    expect(await outcomeAs('posts', 'SELECT email, password_hash FROM identity.users')).toBe(INSUFFICIENT_PRIVILEGE);
    const tables = await admin.query<{ schemaname: string; tablename: string }>(
      "SELECT DISTINCT ON (schemaname) schemaname, tablename FROM pg_tables WHERE schemaname = ANY ($1) AND tablename <> 'schema_migrations' ORDER BY schemaname, tablename",
      [schemas],
    );
    expect(tables.rows.map((row) => row.schemaname).sort()).toEqual([...schemas].sort());
    for (const unit of onPostgres) {
      const reachable = [...unit.database!.owns, ...unit.database!.reads];
      for (const { schemaname, tablename } of tables.rows) {
        const outcome = await outcomeAs(unit.name, `SELECT * FROM ${pg.escapeIdentifier(schemaname)}.${pg.escapeIdentifier(tablename)} LIMIT 1`);
        expect({ unit: unit.name, table: `${schemaname}.${tablename}`, outcome }).toEqual({
          unit: unit.name,
          table: `${schemaname}.${tablename}`,
          outcome: reachable.includes(schemaname) ? 'ok' : INSUFFICIENT_PRIVILEGE,
        });
      }
    }
  });

  it('writes only what it owns: posts reads the search index and cannot change it, the worker can', async () => {
    const forged = "UPDATE search.post_documents SET title = 'forged'";
    expect(await outcomeAs('posts', forged)).toBe(INSUFFICIENT_PRIVILEGE);
    expect(await outcomeAs('posts', 'CREATE TABLE search.planted (id int)')).toBe(INSUFFICIENT_PRIVILEGE);
    expect(await outcomeAs('identity', 'CREATE SCHEMA planted')).toBe(INSUFFICIENT_PRIVILEGE);
    expect(await outcomeAs('jobs', 'SELECT count(*) FROM search.post_documents')).toBe('ok');
    expect(await outcomeAs('jobs', 'DELETE FROM posts.posts')).toBe(INSUFFICIENT_PRIVILEGE);
    const { rows } = await admin.query<{ title: string }>('SELECT title FROM search.post_documents');
    expect(rows.map((row) => row.title)).toEqual(['Roles']);
  });
});
