import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import type { SeededUser } from './seed';

/** An organisation of many members, written straight into identity's tables, and the seeded account that reads it. */
export interface LargeOrganization {
  readonly id: string;
  /** Its members, the reader included. */
  readonly members: number;
  /** The `session_id` cookie of the reader, the organisation's owner. */
  readonly readerCookie: string;
}

/**
 * Writes an organisation with `count` members besides its owner into
 * identity's schema in one transaction, as the API would leave it: the
 * built-in roles, `owner` as the seeded account (the reader), and `count`
 * new verified accounts without a password as members. Every member joined
 * a millisecond after the one before, in whole milliseconds as the
 * keyset pages' cursors carry them (identity's migration
 * 014_organisations.sql checks it), the owner first.
 */
export async function seedLargeOrganization(databaseUrl: string, owner: SeededUser, count: number): Promise<LargeOrganization> {
  const tag = randomBytes(4).toString('hex');
  const id = randomUUID();
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await db.query('BEGIN');
    await db.query('INSERT INTO identity.organizations (id, slug, name) VALUES ($1, $2, $3)', [id, `large-${tag}`, `Large ${tag}`]);
    await db.query(
      `INSERT INTO identity.org_roles (organization_id, name, built_in) SELECT $1, role, true FROM unnest(ARRAY['owner', 'admin', 'member']) AS roles (role)`,
      [id],
    );
    const { rows } = await db.query<{ start: Date }>(`SELECT date_trunc('milliseconds', now()) - $1 * interval '1 millisecond' AS start`, [count + 1]);
    const start = rows[0]!.start;
    await db.query(`INSERT INTO identity.org_memberships (organization_id, user_id, role, source, joined_at) VALUES ($1, $2, 'owner', 'creator', $3)`, [
      id,
      owner.id,
      start,
    ]);
    // gen_random_uuid() is evaluated once per row: the CTE is read twice but computed once.
    await db.query(
      `WITH numbered AS (SELECT gen_random_uuid() AS id, n FROM generate_series(1, $3::int) AS n),
            accounts AS (
              INSERT INTO identity.users (id, handle, email, email_verified_at)
              SELECT id, 'm' || $2 || '_' || n, 'member.' || $2 || '.' || n || '@example.com', now() FROM numbered
            )
       INSERT INTO identity.org_memberships (organization_id, user_id, role, source, joined_at)
       SELECT $1, id, 'member', 'admin', $4::timestamptz + n * interval '1 millisecond' FROM numbered`,
      [id, tag, count, start],
    );
    await db.query('COMMIT');
    await db.query('ANALYZE identity.users');
    await db.query('ANALYZE identity.org_memberships');
    return { id, members: count + 1, readerCookie: owner.cookie };
  } catch (error) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await db.end();
  }
}
