import type pg from 'pg';

/** A client registered through admin.v1: Dynamic Client Registration metadata, the secret only hashed. */
export interface StoredClient {
  readonly clientId: string;
  readonly metadata: Record<string, unknown>;
  readonly secretHash: string | undefined;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

interface ClientRow {
  client_id: string;
  metadata: Record<string, unknown>;
  secret_hash: string | null;
  created_at: Date;
  updated_at: Date;
}

function toClient(row: ClientRow): StoredClient {
  return { clientId: row.client_id, metadata: row.metadata, secretHash: row.secret_hash ?? undefined, createdAt: row.created_at, updatedAt: row.updated_at };
}

export async function findStoredClient(db: pg.ClientBase | pg.Pool, clientId: string): Promise<StoredClient | undefined> {
  const { rows } = await db.query<ClientRow>('SELECT * FROM oidc_clients WHERE client_id = $1', [clientId]);
  return rows[0] && toClient(rows[0]);
}
