import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { AppError, type FieldError } from '@latchkey/errors';
import { isUniqueViolation, withTransaction } from '@latchkey/db';
import type { RequestContext } from '@latchkey/grpc-kit';
import { clientEntrySchema, generateClientSecret, hashClientSecret, reservedClientIdProblem, usesClientSecret, type ClientEntry } from '@latchkey/oidc-clients';
import { actorOf, recordAdminAction } from '../audit-log';
import type { IdentityDeps } from '../identity-deps';

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
  const { rows } = await db.query<ClientRow>('SELECT * FROM identity.oidc_clients WHERE client_id = $1', [clientId]);
  return rows[0] && toClient(rows[0]);
}

export async function listStoredClients(db: pg.Pool): Promise<StoredClient[]> {
  const { rows } = await db.query<ClientRow>('SELECT * FROM identity.oidc_clients ORDER BY created_at, client_id');
  return rows.map(toClient);
}

/**
 * An entry as admin.v1 takes it: the rules of docs/oidc.md, "Clients" (the
 * same as OIDC_CLIENTS'), and never a secret, which Latchkey makes.
 */
function parseEntry(entryJson: string, clientId: string | undefined): ClientEntry {
  let raw: unknown;
  try {
    raw = JSON.parse(entryJson);
  } catch {
    throw AppError.validation([{ field: 'entry_json', message: 'must be a JSON object' }]);
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw AppError.validation([{ field: 'entry_json', message: 'must be a JSON object' }]);
  const given = raw as Record<string, unknown>;
  if ('client_secret' in given) throw AppError.validation([{ field: 'client_secret', message: 'is made by Latchkey: leave it out' }]);
  if (clientId !== undefined && given.client_id !== undefined && given.client_id !== clientId) {
    throw AppError.validation([{ field: 'client_id', message: 'must be the client’s own' }]);
  }
  const parsed = clientEntrySchema.safeParse({ ...given, client_id: clientId ?? given.client_id ?? randomUUID() });
  if (!parsed.success) {
    const errors: FieldError[] = parsed.error.issues.map((issue) => ({ field: issue.path.join('.') || 'entry_json', message: issue.message }));
    throw AppError.validation(errors);
  }
  return parsed.data;
}

/** The metadata kept for an entry: the entry itself, its secret never in it. */
function metadataOf(entry: ClientEntry): Record<string, unknown> {
  const { client_secret: _none, ...metadata } = entry;
  return metadata;
}

/** Registers a client, audited; answers it with its secret, which exists in clear only in this answer. */
export async function createClient(
  deps: Pick<IdentityDeps, 'pool' | 'serviceTokenAudience'>,
  entryJson: string,
  context: RequestContext,
): Promise<{ client: StoredClient; secret: string | undefined }> {
  const actor = actorOf(context);
  const entry = parseEntry(entryJson, undefined);
  const reserved = reservedClientIdProblem(entry.client_id, deps.serviceTokenAudience);
  if (reserved) throw AppError.validation([{ field: 'client_id', message: reserved }]);
  const secret = usesClientSecret(entry) ? generateClientSecret() : undefined;
  try {
    return await withTransaction(deps.pool, context, async (db) => {
      const { rows } = await db.query<ClientRow>(
        'INSERT INTO identity.oidc_clients (client_id, metadata, secret_hash) VALUES ($1, $2, $3) RETURNING *',
        [entry.client_id, metadataOf(entry), secret === undefined ? null : hashClientSecret(secret)],
      );
      await recordAdminAction(db, { ...actor, action: 'create_client', userIds: [null], clientId: entry.client_id });
      return { client: toClient(rows[0]!), secret };
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError('oidc:client_exists');
    throw error;
  }
}

/** Replaces a client's entry, audited, keeping its secret; a move to a secret-based method makes one. */
export async function updateClient(
  deps: Pick<IdentityDeps, 'pool'>,
  input: { clientId: string; entryJson: string },
  context: RequestContext,
): Promise<{ client: StoredClient; secret: string | undefined }> {
  const actor = actorOf(context);
  const entry = parseEntry(input.entryJson, input.clientId);
  return withTransaction(deps.pool, context, async (db) => {
    const current = await lockedClient(db, input.clientId);
    const secret = usesClientSecret(entry) && current.secretHash === undefined ? generateClientSecret() : undefined;
    const secretHash = usesClientSecret(entry) ? (secret === undefined ? current.secretHash : hashClientSecret(secret)) : undefined;
    const { rows } = await db.query<ClientRow>(
      'UPDATE identity.oidc_clients SET metadata = $2, secret_hash = $3, updated_at = now() WHERE client_id = $1 RETURNING *',
      [input.clientId, metadataOf(entry), secretHash ?? null],
    );
    await recordAdminAction(db, { ...actor, action: 'update_client', userIds: [null], clientId: input.clientId });
    return { client: toClient(rows[0]!), secret };
  });
}

/** Removes a client with its grants, codes, tokens and session records, audited. */
export async function deleteClient(deps: Pick<IdentityDeps, 'pool'>, clientId: string, context: RequestContext): Promise<void> {
  const actor = actorOf(context);
  await withTransaction(deps.pool, context, async (db) => {
    await lockedClient(db, clientId);
    await db.query('DELETE FROM identity.oidc_artifacts WHERE client_id = $1', [clientId]);
    await db.query('DELETE FROM identity.oidc_session_clients WHERE client_id = $1', [clientId]);
    await db.query('DELETE FROM identity.oidc_clients WHERE client_id = $1', [clientId]);
    await recordAdminAction(db, { ...actor, action: 'delete_client', userIds: [null], clientId });
  });
}

/** A new secret for a client that has one, audited; the old one stops working. */
export async function rotateClientSecret(deps: Pick<IdentityDeps, 'pool'>, clientId: string, context: RequestContext): Promise<string> {
  const actor = actorOf(context);
  return withTransaction(deps.pool, context, async (db) => {
    const current = await lockedClient(db, clientId);
    if (current.secretHash === undefined) throw AppError.validation([{ field: 'client_id', message: 'this client has no secret' }]);
    const secret = generateClientSecret();
    await db.query('UPDATE identity.oidc_clients SET secret_hash = $2, updated_at = now() WHERE client_id = $1', [clientId, hashClientSecret(secret)]);
    await recordAdminAction(db, { ...actor, action: 'rotate_client_secret', userIds: [null], clientId });
    return secret;
  });
}

async function lockedClient(db: pg.ClientBase, clientId: string): Promise<StoredClient> {
  const { rows } = await db.query<ClientRow>('SELECT * FROM identity.oidc_clients WHERE client_id = $1 FOR UPDATE', [clientId]);
  if (!rows[0]) throw new AppError('oidc:client_not_found');
  return toClient(rows[0]);
}
