import pg from 'pg';
import { testDatabaseAdminUrl } from './backing-services';
import { uniqueName } from './unique-name';

export interface TestDatabase {
  readonly name: string;
  readonly url: string;
  drop(): Promise<void>;
}

/** A fresh, empty database for one test file, so files never share rows. */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const adminUrl = testDatabaseAdminUrl();
  const name = uniqueName(label);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
