import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { UnitDatabase } from '@latchkey/units';
import { databaseNameOf } from './stack-environment';

/** A unit that uses PostgreSQL, as the catalogue declares its schemas. */
export interface DatabaseUnit {
  readonly name: string;
  readonly database?: UnitDatabase;
}

/** The longest name PostgreSQL keeps whole (NAMEDATALEN - 1); a longer one is cut, silently. */
const MAX_NAME_BYTES = 63;
const PLAIN_NAME = /^[a-z_][a-z0-9_]*$/;

/**
 * The role of `unit` in `database`: `latchkey_identity`. Roles belong to the
 * whole server, so the database's name keeps apart the stacks that share
 * one (the end-to-end test files, each with a database of its own), and
 * test-kit's dropTestDatabase drops them with their database.
 */
export function unitRoleName(database: string, unit: string): string {
  const name = `${database}_${unit}`;
  if (!PLAIN_NAME.test(name) || Buffer.byteLength(name) > MAX_NAME_BYTES) {
    throw new Error(`cannot name a role for unit ${unit} of database ${JSON.stringify(database)}: ${JSON.stringify(name)} is not a plain name of at most ${MAX_NAME_BYTES} bytes`);
  }
  return name;
}

/** What the objects of a schema are altered as, by pg_class.relkind. */
const relationKinds: Readonly<Record<string, string>> = {
  r: 'TABLE',
  p: 'TABLE',
  v: 'VIEW',
  m: 'MATERIALIZED VIEW',
  f: 'FOREIGN TABLE',
  S: 'SEQUENCE',
};

/**
 * Makes `role` the owner of `schema` and of everything in it, creating the
 * schema if it is missing. A schema a unit's migrations made before it had
 * a role of its own (under the administrator's) moves to the unit, so that
 * its next migrations may alter what is there. Indexes, triggers and the
 * sequences of identity and serial columns follow their tables.
 */
async function giveSchema(client: pg.ClientBase, schema: string, role: string): Promise<void> {
  const [schemaName, roleName] = [pg.escapeIdentifier(schema), pg.escapeIdentifier(role)];
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${schemaName} AUTHORIZATION ${roleName}`);
  await client.query(`ALTER SCHEMA ${schemaName} OWNER TO ${roleName}`);
  const relations = await client.query<{ name: string; relkind: string }>(
    `SELECT c.oid::regclass::text AS name, c.relkind FROM pg_class c
      WHERE c.relnamespace = $1::regnamespace AND c.relowner <> $2::regrole AND c.relkind = ANY ($3)
        AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i'))`,
    [schema, role, Object.keys(relationKinds)],
  );
  for (const { name, relkind } of relations.rows) await client.query(`ALTER ${relationKinds[relkind]} ${name} OWNER TO ${roleName}`);
  // Enums, domains, ranges and composite types of their own; their array types follow them.
  const types = await client.query<{ name: string; typtype: string }>(
    `SELECT t.oid::regtype::text AS name, t.typtype FROM pg_type t
      WHERE t.typnamespace = $1::regnamespace AND t.typowner <> $2::regrole
        AND (t.typtype IN ('e', 'd', 'r') OR (t.typtype = 'c' AND (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c'))`,
    [schema, role],
  );
  for (const { name, typtype } of types.rows) await client.query(`ALTER ${typtype === 'd' ? 'DOMAIN' : 'TYPE'} ${name} OWNER TO ${roleName}`);
  const routines = await client.query<{ name: string }>(
    `SELECT p.oid::regprocedure::text AS name FROM pg_proc p
      WHERE p.pronamespace = $1::regnamespace AND p.proowner <> $2::regrole AND p.prokind IN ('f', 'p')`,
    [schema, role],
  );
  for (const { name } of routines.rows) await client.query(`ALTER ROUTINE ${name} OWNER TO ${roleName}`);
}

/**
 * Lets `reader` read `schema`, which `owner` keeps: what is there now, and
 * the tables the owner's later migrations create (default privileges).
 */
async function grantRead(client: pg.ClientBase, schema: string, owner: string, reader: string): Promise<void> {
  const [schemaName, ownerName, readerName] = [schema, owner, reader].map((name) => pg.escapeIdentifier(name));
  await client.query(`GRANT USAGE ON SCHEMA ${schemaName} TO ${readerName}`);
  await client.query(`GRANT SELECT ON ALL TABLES IN SCHEMA ${schemaName} TO ${readerName}`);
  await client.query(`ALTER DEFAULT PRIVILEGES FOR ROLE ${ownerName} IN SCHEMA ${schemaName} GRANT SELECT ON TABLES TO ${readerName}`);
}

/** `url` with `role` and `password` as its user. */
function asRole(url: string, role: string, password: string): string {
  const withRole = new URL(url);
  withRole.username = role;
  withRole.password = password;
  return withRole.toString();
}

/**
 * Gives every unit of `units` that uses PostgreSQL a role of its own in the
 * database `adminUrl` names (docs/operations.md, "A PostgreSQL role per
 * unit"): it owns the unit's schemas, reads the schemas the unit reads, and
 * has no right on any other. Each call sets new passwords. Runs as the
 * administrator of `adminUrl`, who may create roles and schemas, in one
 * transaction. Answers, per unit, how `url` (DATABASE_URL and the like) is
 * given to it: the same server and database, as its role.
 */
export async function ensureUnitRoles(
  adminUrl: string,
  units: readonly DatabaseUnit[],
): Promise<ReadonlyMap<string, (url: string) => string>> {
  const database = databaseNameOf(adminUrl);
  const using = units.filter((unit): unit is DatabaseUnit & { database: UnitDatabase } => unit.database !== undefined);
  const roles = new Map(using.map((unit) => [unit.name, { role: unitRoleName(database, unit.name), password: randomBytes(24).toString('base64url') }]));
  const owners = new Map(using.flatMap((unit) => unit.database.owns.map((schema) => [schema, roles.get(unit.name)!.role] as const)));
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await client.query('BEGIN');
    // Two stacks of one database (a second `pnpm stack`) take turns.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`latchkey-stack-roles:${database}`]);
    for (const { role, password } of roles.values()) {
      const exists = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
      const verb = exists.rowCount === 0 ? 'CREATE' : 'ALTER';
      await client.query(`${verb} ROLE ${pg.escapeIdentifier(role)} LOGIN PASSWORD ${pg.escapeLiteral(password)}`);
    }
    for (const [schema, owner] of owners) await giveSchema(client, schema, owner);
    for (const unit of using) {
      for (const schema of unit.database.reads) {
        const owner = owners.get(schema);
        if (owner === undefined) throw new Error(`${unit.name} reads schema ${schema}, which no unit owns`);
        await grantRead(client, schema, owner, roles.get(unit.name)!.role);
      }
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`could not give the units roles of their own in ${database} as ${new URL(adminUrl).username || 'the default user'} (its role must be allowed to create roles and schemas): ${reason}`, {
      cause: error,
    });
  } finally {
    await client.end();
  }
  return new Map([...roles].map(([unit, { role, password }]) => [unit, (url: string) => asRole(url, role, password)]));
}
