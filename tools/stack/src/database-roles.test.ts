import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '@latchkey/test-kit';
import { ensureUnitRoles, unitRoleName } from './database-roles';

/**
 * ensureUnitRoles against the machine's PostgreSQL (or DATABASE_URL), in a
 * database of its own: a unit that owns a schema and one that reads it.
 */
const units = [
  { name: 'keeper', database: { owns: ['kept'], reads: [] } },
  { name: 'reader', database: { owns: ['own'], reads: ['kept'] } },
  { name: 'web' },
];
let database: TestDatabase;
let admin: pg.Client;

beforeEach(async () => {
  database = await createTestDatabase('roles');
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
});

afterEach(async () => {
  await admin.end();
  await database.drop();
});

/** Runs `sql` as the role `asRole` gives; answers the rows of its last statement, or the SQLSTATE it failed with. */
async function as(asRole: ((url: string) => string) | undefined, sql: string): Promise<unknown[] | string> {
  const client = new pg.Client({ connectionString: asRole!(database.url) });
  await client.connect();
  try {
    const results = (await client.query(sql)) as pg.QueryResult<Record<string, unknown>> | pg.QueryResult<Record<string, unknown>>[];
    return (Array.isArray(results) ? results.at(-1)! : results).rows;
  } catch (error) {
    return (error as { code: string }).code;
  } finally {
    await client.end();
  }
}

describe('unitRoleName', () => {
  it('names a role for the unit and its database, and refuses what PostgreSQL would cut or need quoted', () => {
    expect(unitRoleName('latchkey', 'identity')).toBe('latchkey_identity');
    expect(() => unitRoleName('x'.repeat(60), 'identity')).toThrow(/at most 63 bytes/);
    expect(() => unitRoleName('Latchkey-Prod', 'identity')).toThrow(/not a plain name/);
  });
});

describe('ensureUnitRoles', () => {
  it('says what the administrator’s role lacks, and leaves nothing half made', async () => {
    await admin.query(`CREATE ROLE ${database.name}_plain LOGIN`);
    const plain = new URL(database.url);
    plain.username = `${database.name}_plain`;
    await expect(ensureUnitRoles(plain.toString(), units)).rejects.toThrow(
      new RegExp(`could not give the units roles of their own in ${database.name} as ${database.name}_plain .*permission denied`),
    );
    const { rows } = await admin.query('SELECT rolname FROM pg_roles WHERE starts_with(rolname, $1)', [`${database.name}_`]);
    expect(rows).toEqual([{ rolname: `${database.name}_plain` }]);
  });

  it('gives each unit on PostgreSQL a role that owns its schemas and reads those it reads, now and after its next migration', async () => {
    const roles = await ensureUnitRoles(database.url, units);
    expect([...roles.keys()]).toEqual(['keeper', 'reader']);
    const keeper = roles.get('keeper');
    const reader = roles.get('reader');
    expect(new URL(keeper!(database.url)).username).toBe(`${database.name}_keeper`);

    // The keeper migrates its schema as itself; the reader reads the table it made, and cannot write it.
    expect(await as(keeper, 'CREATE TABLE kept.documents (id int); INSERT INTO kept.documents VALUES (1)')).toEqual([]);
    expect(await as(reader, 'SELECT id FROM kept.documents')).toEqual([{ id: 1 }]);
    expect(await as(reader, 'INSERT INTO kept.documents VALUES (2)')).toBe('42501');
    expect(await as(keeper, 'SELECT 1 FROM own.anything')).toBe('42501');
    expect(await as(reader, 'CREATE TABLE own.notes (id int)')).toEqual([]);
    expect(await as(keeper, 'CREATE SCHEMA elsewhere')).toBe('42501');
  });

  it('hands a schema made before the roles, and everything in it, to its unit, and changes the passwords on each call', async () => {
    await admin.query(`
      CREATE SCHEMA kept;
      CREATE TYPE kept.purpose AS ENUM ('a', 'b');
      CREATE TABLE kept.entries (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, purpose kept.purpose NOT NULL);
      CREATE SEQUENCE kept.numbers;
      CREATE VIEW kept.recent AS SELECT id FROM kept.entries;
      CREATE FUNCTION kept.refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no'; END $$;
      INSERT INTO kept.entries (purpose) VALUES ('a');
    `);
    const first = await ensureUnitRoles(database.url, units);
    const roles = await ensureUnitRoles(database.url, units);
    const keeper = `${database.name}_keeper`;
    const { rows } = await admin.query<{ object: string; owner: string }>(
      `SELECT 'schema' AS object, pg_get_userbyid(nspowner) AS owner FROM pg_namespace WHERE nspname = 'kept'
       UNION ALL SELECT relname::text, pg_get_userbyid(relowner) FROM pg_class WHERE relnamespace = 'kept'::regnamespace
       UNION ALL SELECT typname::text, pg_get_userbyid(typowner) FROM pg_type WHERE typnamespace = 'kept'::regnamespace AND typtype = 'e'
       UNION ALL SELECT proname::text, pg_get_userbyid(proowner) FROM pg_proc WHERE pronamespace = 'kept'::regnamespace`,
    );
    expect(rows.length).toBeGreaterThanOrEqual(8);
    for (const row of rows) expect(row).toEqual({ object: row.object, owner: keeper });
    // As owner, the unit's next migration may alter what was there.
    expect(await as(roles.get('keeper'), "ALTER TYPE kept.purpose ADD VALUE 'c'; ALTER TABLE kept.entries ADD COLUMN note text")).toEqual([]);
    expect(await as(roles.get('reader'), 'SELECT id FROM kept.entries')).toEqual([{ id: '1' }]);
    expect(new URL(roles.get('keeper')!(database.url)).password).not.toBe(new URL(first.get('keeper')!(database.url)).password);
  });
});
