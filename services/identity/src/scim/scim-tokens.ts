import type pg from 'pg';
import { uuidv7 } from 'uuidv7';
import type { scimV1 } from '@latchkey/contracts';
import { withTransaction } from '@latchkey/db';
import { AppError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import { generateOpaqueToken, hashOpaqueToken } from '@latchkey/opaque-token';
import { actingMember } from '../orgs/membership-store';
import { isId, refuse } from '../orgs/org-fields';
import { recordOrgAudit } from '../orgs/org-audit-log';

/** The prefix tells a leaked token's kind to secret scanners and people. */
const TOKEN_PREFIX = 'lk_scim_';
const MAX_DESCRIPTION_LENGTH = 200;
const MAX_TOKENS_PER_ORGANIZATION = 20;

/** The organisation a provisioning call acts on, and the token that named it (the audit log's actor). */
export interface ScimCaller {
  readonly organizationId: string;
  readonly tokenId: string;
}

interface TokenRow {
  id: string;
  description: string;
  created_at: Date;
  last_used_at: Date | null;
}

function tokenOf(row: TokenRow): scimV1.Token {
  return { id: row.id, description: row.description, createdAt: row.created_at, lastUsedAt: row.last_used_at ?? undefined };
}

export async function createToken(
  pool: pg.Pool,
  input: { readonly actorUserId: string; readonly organizationId: string; readonly description: string },
  context: RequestContext,
): Promise<{ token: scimV1.Token; secret: string }> {
  const description = input.description.trim();
  refuse(
    [...description].length > MAX_DESCRIPTION_LENGTH || /\p{Cc}/u.test(description)
      ? [{ field: 'description', message: `must be at most ${MAX_DESCRIPTION_LENGTH} characters on one line` }]
      : [],
  );
  return withTransaction(pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { lock: true, needs: 'scim:manage' });
    const { rows: counted } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM identity.scim_tokens WHERE organization_id = $1', [actor.organizationId]);
    if (counted[0]!.n >= MAX_TOKENS_PER_ORGANIZATION) throw new AppError('org:limit_reached', `An organisation holds at most ${MAX_TOKENS_PER_ORGANIZATION} SCIM tokens.`);
    const secret = `${TOKEN_PREFIX}${generateOpaqueToken()}`;
    const { rows } = await db.query<TokenRow>(
      `INSERT INTO identity.scim_tokens (id, organization_id, token_hash, description, created_by) VALUES ($1, $2, $3, $4, $5)
       RETURNING id, description, created_at, last_used_at`,
      [uuidv7(), actor.organizationId, hashOpaqueToken(secret), description, actor.userId],
    );
    const row = rows[0]!;
    await recordOrgAudit(
      db,
      { organizationId: actor.organizationId, action: 'scim.token.created', actor: { type: 'user', id: actor.userId }, target: { type: 'scim_token', id: row.id } },
      context,
    );
    return { token: tokenOf(row), secret };
  });
}

export async function listTokens(pool: pg.Pool, input: { readonly actorUserId: string; readonly organizationId: string }, context: RequestContext): Promise<scimV1.Token[]> {
  return withTransaction(pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { needs: 'scim:manage' });
    const { rows } = await db.query<TokenRow>(
      'SELECT id, description, created_at, last_used_at FROM identity.scim_tokens WHERE organization_id = $1 ORDER BY created_at, id',
      [actor.organizationId],
    );
    return rows.map(tokenOf);
  });
}

export async function revokeToken(
  pool: pg.Pool,
  input: { readonly actorUserId: string; readonly organizationId: string; readonly tokenId: string },
  context: RequestContext,
): Promise<void> {
  if (!isId(input.tokenId)) throw new AppError('scim:token_not_found');
  await withTransaction(pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { needs: 'scim:manage' });
    const { rowCount } = await db.query('DELETE FROM identity.scim_tokens WHERE organization_id = $1 AND id = $2', [actor.organizationId, input.tokenId]);
    if (rowCount === 0) throw new AppError('scim:token_not_found');
    await recordOrgAudit(
      db,
      { organizationId: actor.organizationId, action: 'scim.token.revoked', actor: { type: 'user', id: actor.userId }, target: { type: 'scim_token', id: input.tokenId.toLowerCase() } },
      context,
    );
  });
}

/** How often last_used_at is written: once a minute per token is enough to show a sync, and spares a write per request. */
const LAST_USED_RESOLUTION = "interval '1 minute'";

/**
 * The organisation of a bearer token. The lookup is by the token's SHA-256
 * on a unique index: an equality on a hash of 256 random bits, which leaks
 * nothing of the token through timing.
 */
export async function authenticate(db: pg.Pool | pg.ClientBase, token: string): Promise<ScimCaller> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) throw new AppError('scim:unauthorized');
  const { rows } = await db.query<{ id: string; organization_id: string }>(
    `UPDATE identity.scim_tokens SET last_used_at = now() WHERE token_hash = $1 AND (last_used_at IS NULL OR last_used_at < now() - ${LAST_USED_RESOLUTION})
     RETURNING id, organization_id`,
    [hashOpaqueToken(token)],
  );
  const found =
    rows[0] ??
    (await db.query<{ id: string; organization_id: string }>('SELECT id, organization_id FROM identity.scim_tokens WHERE token_hash = $1', [hashOpaqueToken(token)])).rows[0];
  if (!found) throw new AppError('scim:unauthorized');
  return { organizationId: found.organization_id, tokenId: found.id };
}
