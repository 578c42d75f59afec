// Keeps docs/operations.md, "A PostgreSQL role per unit", true: its SQL,
// run as written (the roles named for a database of this test's own, so
// that parallel runs and a developer's `pnpm stack` roles never meet), sets
// up roles under which every unit's own migrations run and which reach
// their own schemas only, for a new installation and for one that used a
// single role.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '@latchkey/test-kit';
import { createLogger } from '@latchkey/telemetry';
import { units } from '@latchkey/units';
import { migrateJobsSchema } from '../../services/jobs/src/migrate';

const section = (() => {
  const doc = readFileSync(path.resolve(__dirname, '../../docs/operations.md'), 'utf8');
  const start = doc.indexOf('\n### A PostgreSQL role per unit\n');
  return doc.slice(start, doc.indexOf('\n### ', start + 1));
})();
const [newInstall, handOver] = [...section.matchAll(/```sql\n([\s\S]*?)```/g)].map(([, sql]) => sql!);
const onPostgres = units.filter((unit) => unit.database !== undefined);
const logger = createLogger({ service: 'database-roles-docs', level: 'silent' });

/** Each unit's `migrate` command, as its Job runs it. */
async function migrate(unit: string, databaseUrl: string): Promise<void> {
  if (unit === 'jobs') {
    await migrateJobsSchema(databaseUrl);
    return;
  }
  const command = (await import(`../../services/${unit}/src/migrate`)) as { migrate: (urls: { DATABASE_URL: string }, log: typeof logger) => Promise<void> };
  await command.migrate({ DATABASE_URL: databaseUrl }, logger);
}

let database: TestDatabase;
let admin: pg.Client;

beforeEach(async () => {
  database = await createTestDatabase('docroles');
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
});

afterEach(async () => {
  await admin.end();
  await database.drop();
});

/** The documented SQL with the roles named for this test's database; dropTestDatabase drops them with it. */
const asWritten = (sql: string): string => sql.replaceAll('latchkey_', `${database.name}_`);
const roleOf = (unit: string): string => `${database.name}_${unit}`;
function urlOf(unit: string): string {
  const url = new URL(database.url);
  url.username = roleOf(unit);
  url.password = `change-me-${unit}`;
  return url.toString();
}

/** The SQLSTATE `sql` fails with as `unit`'s role, or `ok`. */
async function outcomeAs(unit: string, sql: string): Promise<string> {
  const client = new pg.Client({ connectionString: urlOf(unit) });
  await client.connect();
  try {
    await client.query(sql);
    return 'ok';
  } catch (error) {
    return (error as { code: string }).code;
  } finally {
    await client.end();
  }
}

/** Every unit migrates as its role, owns all that is in its schemas, and reads only what it may. */
async function expectLeastPrivilege(): Promise<void> {
  for (const unit of onPostgres) await migrate(unit.name, urlOf(unit.name));
  const { rows } = await admin.query<{ schema: string; object: string; owner: string }>(
    `SELECT nspname AS schema, nspname AS object, pg_get_userbyid(nspowner) AS owner FROM pg_namespace WHERE nspname = ANY ($1)
     UNION ALL SELECT relnamespace::regnamespace::text, relname::text, pg_get_userbyid(relowner) FROM pg_class WHERE relnamespace::regnamespace::text = ANY ($1)
     UNION ALL SELECT pronamespace::regnamespace::text, proname::text, pg_get_userbyid(proowner) FROM pg_proc WHERE pronamespace::regnamespace::text = ANY ($1)
     UNION ALL SELECT typnamespace::regnamespace::text, typname::text, pg_get_userbyid(typowner) FROM pg_type WHERE typtype = 'e' AND typnamespace::regnamespace::text = ANY ($1)`,
    [onPostgres.flatMap((unit) => unit.database!.owns)],
  );
  const ownerOf = Object.fromEntries(onPostgres.flatMap((unit) => unit.database!.owns.map((schema) => [schema, roleOf(unit.name)])));
  expect(rows.length).toBeGreaterThan(20);
  for (const row of rows) expect(row).toEqual({ ...row, owner: ownerOf[row.schema] });

  expect(await outcomeAs('posts', 'SELECT email, password_hash FROM identity.users')).toBe('42501');
  expect(await outcomeAs('posts', 'SELECT post_id FROM search.post_documents')).toBe('ok');
  expect(await outcomeAs('posts', 'DELETE FROM search.post_documents')).toBe('42501');
  expect(await outcomeAs('jobs', 'SELECT id FROM posts.posts')).toBe('42501');
  expect(await outcomeAs('identity', 'SELECT 1 FROM totp.totp_credentials')).toBe('42501');
  expect(await outcomeAs('oauth', 'CREATE SCHEMA planted')).toBe('42501');
}

describe('docs/operations.md, "A PostgreSQL role per unit"', () => {
  it('sets up a new installation whose units migrate and run as their own roles', async () => {
    expect(newInstall).toContain('CREATE ROLE latchkey_identity');
    await admin.query(asWritten(newInstall!));
    await expectLeastPrivilege();
  });

  it('hands the schemas of an installation that used one role over to the units', async () => {
    for (const unit of onPostgres) await migrate(unit.name, database.url);
    const createRoles = newInstall!.split('\n').filter((line) => line.startsWith('CREATE ROLE '));
    expect(createRoles).toHaveLength(onPostgres.length);
    await admin.query(asWritten(createRoles.join('\n')));
    await admin.query(asWritten(handOver!));
    await expectLeastPrivilege();
  });
});
