import type pg from 'pg';
import { isUuid } from '@latchkey/account-fields';
import { AppError } from '@latchkey/errors';
import { withTransaction } from '@latchkey/db';
import type { RequestContext } from '@latchkey/grpc-kit';
import type { IdentityDeps } from '../identity-deps';
import { queueMail } from '../mail-queue';
import { findUserById } from '../user-store';
import { presentedPayloadOf, storedIdOf, storedPayloadOf, userCodeHashOf } from './artifact-hashes';
import { assertKind, type ArtifactKind } from './artifact-kinds';
import { recordSessionClient, sessionClientInsert, type SessionClientEntry, type SessionClientSettings } from './oidc-session-clients';

/** The fields of a provider payload that identity reads; the rest is the provider's. */
interface ArtifactPayload {
  readonly accountId?: string;
  readonly clientId?: string;
  readonly grantId?: string;
  readonly userCode?: string;
  readonly sid?: string;
  readonly sessionUid?: string;
  readonly openid?: { readonly scope?: string };
}

export const FOREIGN_KEY_VIOLATION = '23503';

function parsePayload(json: string): ArtifactPayload & Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(json);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as ArtifactPayload & Record<string, unknown>;
  } catch {
    // Refused below, like any payload that is not an object.
  }
  throw new AppError('validation:invalid_input', 'payload must be a JSON object');
}

/** An artifact to save, as SaveArtifact and IssueArtifacts take it. */
export interface ArtifactToSave {
  readonly kind: string;
  readonly id: string;
  readonly payloadJson: string;
  readonly expiresAt: Date;
  readonly sessionClient?: SessionClientSettings | undefined;
}

/** An artifact checked and parsed, ready to write. */
interface CheckedArtifact {
  readonly kind: ArtifactKind;
  readonly id: string;
  readonly payload: ArtifactPayload & Record<string, unknown>;
  readonly clientId: string;
  readonly userId: string | undefined;
  readonly expiresAt: Date;
  readonly sessionClient: SessionClientSettings | undefined;
}

function checkArtifact(input: ArtifactToSave): CheckedArtifact {
  const kind = assertKind(input.kind);
  const payload = parsePayload(input.payloadJson);
  const clientId = payload.clientId;
  if (input.id === '' || !clientId) throw new AppError('validation:invalid_input', 'an artifact needs an id and a clientId');
  const userId = payload.accountId;
  if (userId !== undefined && !isUuid(userId)) throw new AppError('validation:invalid_input', 'accountId must be a user id');
  return { kind, id: input.id, payload, clientId, userId, expiresAt: input.expiresAt, sessionClient: input.sessionClient };
}

/**
 * The rows of artifacts as one jsonb parameter, each value and user code
 * hashed (artifact-hashes.ts). A device code saved again keeps its user
 * code: the payload it comes back with lacks it, as identity answered it.
 */
function artifactRows(artifacts: readonly CheckedArtifact[]): string {
  return JSON.stringify(
    artifacts.map(({ kind, id, payload, clientId, userId, expiresAt }) => ({
      kind,
      id: storedIdOf(kind, id),
      payload: storedPayloadOf(kind, payload),
      user_id: userId ?? null,
      client_id: clientId,
      grant_id: payload.grantId ?? null,
      user_code: kind === 'DeviceCode' && typeof payload.userCode === 'string' ? userCodeHashOf(payload.userCode) : null,
      expires_at: expiresAt.toISOString(),
    })),
  );
}

/** Writes the rows of parameter $1 (artifactRows) where `condition` holds: a statement, or part of one. */
function upsertArtifacts(condition: string): string {
  return `INSERT INTO identity.oidc_artifacts (kind, id, payload, user_id, client_id, grant_id, user_code, expires_at)
     SELECT kind, id, payload, user_id, client_id, grant_id, user_code, expires_at
     FROM jsonb_to_recordset($1::jsonb) AS a(kind text, id text, payload jsonb, user_id uuid, client_id text, grant_id text, user_code text, expires_at timestamptz)
     WHERE ${condition}
     ON CONFLICT (kind, id) DO UPDATE SET payload = EXCLUDED.payload, user_id = EXCLUDED.user_id, grant_id = EXCLUDED.grant_id,
       user_code = coalesce(EXCLUDED.user_code, oidc_artifacts.user_code), expires_at = EXCLUDED.expires_at`;
}

/**
 * The session a code names, when it names one: saving the code records
 * that the session signed in to the client, so that no code reaches a
 * client that its session's logout could miss. The provider's sid and
 * session uid are both the Latchkey session's public id (docs/oidc.md, "Logout").
 */
function sessionClientOf(artifact: CheckedArtifact): SessionClientEntry | undefined {
  const { kind, payload, clientId, userId, sessionClient } = artifact;
  const sessionId = payload.sid ?? payload.sessionUid;
  if (!sessionClient || userId === undefined || !sessionId || (kind !== 'AuthorizationCode' && kind !== 'DeviceCode')) return undefined;
  return { sessionId, clientId, userId, settings: sessionClient };
}

/** Runs a write of artifacts, answering user:not_found for the account's foreign key: it is gone. */
async function writingArtifacts<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if ((error as { code?: string }).code === FOREIGN_KEY_VIOLATION) throw new AppError('user:not_found');
    throw error;
  }
}

/**
 * Stores one artifact, and for a code that names a session the session's
 * sign-in to the client, in one statement: one round trip, no transaction
 * to open and commit (docs/performance.md, "The OpenID Provider").
 */
export async function saveArtifact(deps: Pick<IdentityDeps, 'pool'>, input: ArtifactToSave): Promise<void> {
  const artifact = checkArtifact(input);
  const rows = artifactRows([artifact]);
  const session = sessionClientOf(artifact);
  await writingArtifacts(async () => {
    if (!session) return deps.pool.query(upsertArtifacts('true'), [rows]);
    const record = sessionClientInsert(session, 2, 'EXISTS (SELECT 1 FROM written)');
    return deps.pool.query(`WITH written AS (${upsertArtifacts('true')} RETURNING 1) ${record.sql}`, [rows, ...record.params]);
  });
}

/**
 * What one token request issues (docs/oidc.md, "Tokens"): the code or
 * refresh token exchanged is consumed and the new tokens saved together,
 * so that two requests racing with one code or refresh token never both
 * get tokens. The usual case, a source not used before, is one statement
 * that consumes it and writes the tokens only if it did. Otherwise a
 * transaction looks at the source: one consumed already is a reuse,
 * handled as consumeArtifact handles one, and one that is gone (revoked
 * meanwhile) is refused too: both answer oidc:token_reused and save nothing.
 */
export async function issueArtifacts(
  deps: Pick<IdentityDeps, 'pool'>,
  input: { source?: { kind: string; id: string } | undefined; artifacts: readonly ArtifactToSave[] },
  context: RequestContext,
): Promise<void> {
  const source = input.source && { kind: assertKind(input.source.kind), id: input.source.id };
  const artifacts = input.artifacts.map(checkArtifact);
  const sessions = artifacts.map(sessionClientOf).filter((entry) => entry !== undefined);
  const rows = artifactRows(artifacts);
  if (sessions.length === 0) {
    if (!source) {
      await writingArtifacts(() => deps.pool.query(upsertArtifacts('true'), [rows]));
      return;
    }
    const { rows: answer } = await writingArtifacts(() =>
      deps.pool.query<{ consumed: boolean }>(
        `WITH consumed AS (
           UPDATE identity.oidc_artifacts SET consumed_at = now() WHERE kind = $2 AND id = $3 AND consumed_at IS NULL RETURNING 1
         ), written AS (${upsertArtifacts('EXISTS (SELECT 1 FROM consumed)')} RETURNING 1)
         SELECT EXISTS (SELECT 1 FROM consumed) AS consumed`,
        [rows, source.kind, storedIdOf(source.kind, source.id)],
      ),
    );
    if (answer[0]?.consumed === true) return;
  }
  const outcome = await withTransaction(deps.pool, context, async (db) => {
    if (source) {
      const { outcome, grantId } = await consumeIn(db, source.kind, source.id, context);
      // A code used twice revokes what its first use got (RFC 6749, section 4.1.2).
      if (outcome === 'reused' && grantId && source.kind !== 'RefreshToken') await revokeGrantIn(db, grantId);
      if (outcome !== 'consumed') return outcome;
    }
    await writingArtifacts(() => db.query(upsertArtifacts('true'), [rows]));
    for (const session of sessions) await recordSessionClient(db, session);
    return 'issued' as const;
  });
  if (outcome !== 'issued') throw new AppError('oidc:token_reused', outcome === 'absent' ? 'the code or token is gone' : undefined);
}

/** What the provider releases about an account, as FindArtifact answers it. */
export interface ArtifactAccount {
  readonly userId: string;
  readonly email: string;
  readonly emailVerified: boolean;
  readonly handle: string;
}

/** The account's columns beside an artifact or a grant, read from `identity.users u` (ACCOUNT_COLUMNS). */
interface AccountColumns {
  readonly account_id: string | null;
  readonly email: string | null;
  readonly email_verified: boolean | null;
  readonly handle: string | null;
}

const ACCOUNT_COLUMNS = 'u.id AS account_id, u.email, u.email_verified_at IS NOT NULL AS email_verified, u.handle';

/** The account of a row read with ACCOUNT_COLUMNS; undefined when the join found none (gone or disabled). */
function accountOf(row: AccountColumns | undefined): ArtifactAccount | undefined {
  if (!row || row.account_id === null) return undefined;
  return { userId: row.account_id, email: row.email ?? '', emailVerified: row.email_verified === true, handle: row.handle ?? '' };
}

/** A live artifact: its kind and payload, with `consumed` (epoch seconds) when it was used, and when asked its grant and account. */
export interface FoundArtifact {
  readonly kind: ArtifactKind;
  readonly payload: Record<string, unknown>;
  readonly grantPayload?: Record<string, unknown> | undefined;
  readonly account?: ArtifactAccount | undefined;
}

/**
 * A live artifact, by id or user code, each hashed as stored. With its
 * grant and account, one statement answers what a token or userinfo
 * request reads after the token itself (docs/performance.md, "The OpenID
 * Provider"). With other kinds, a code or token value is looked up as any
 * of them in the same statement (each is stored under the same hash of
 * its value), the kind asked for first.
 */
export async function findArtifact(
  db: pg.Pool,
  input: { kind: string; id: string; userCode: string; withGrantAndAccount?: boolean; otherKinds?: readonly string[] },
): Promise<FoundArtifact | undefined> {
  const kind = assertKind(input.kind);
  const kinds = [kind, ...(input.otherKinds ?? []).map(assertKind)];
  const byUserCode = input.userCode !== '';
  if (kinds.length > 1 && (byUserCode || kinds.includes('Grant'))) {
    throw new AppError('validation:invalid_input', 'other kinds are looked up by a code or token value only');
  }
  const related = input.withGrantAndAccount === true;
  const { rows } = await db.query<
    AccountColumns & { kind: ArtifactKind; payload: Record<string, unknown>; consumed: number | null; grant_payload: Record<string, unknown> | null }
  >(
    `SELECT a.kind, a.payload, extract(epoch FROM a.consumed_at)::bigint AS consumed, g.payload AS grant_payload, ${ACCOUNT_COLUMNS}
     FROM identity.oidc_artifacts a
     LEFT JOIN identity.oidc_artifacts g ON $3 AND g.kind = 'Grant' AND g.id = a.grant_id AND g.expires_at > now()
     LEFT JOIN identity.users u ON $3 AND u.id = a.user_id AND u.disabled_at IS NULL
     WHERE a.kind = ANY($1::text[]) AND a.${byUserCode ? 'user_code' : 'id'} = $2 AND a.expires_at > now()
     ORDER BY a.kind = $4 DESC
     LIMIT 1`,
    [kinds, byUserCode ? userCodeHashOf(input.userCode) : storedIdOf(kind, input.id), related, kind],
  );
  const row = rows[0];
  if (!row) return undefined;
  const presented = presentedPayloadOf(row.kind, row.payload, byUserCode ? { userCode: input.userCode } : { id: input.id });
  const payload = row.consumed === null ? presented : { ...presented, consumed: Number(row.consumed) };
  return { kind: row.kind, payload, grantPayload: row.grant_payload ?? undefined, account: accountOf(row) };
}

/**
 * Marks a code or token used. The second use of a refresh token is the
 * sign of a stolen one (OAuth 2.0 Security BCP, refresh token rotation):
 * the whole grant is revoked and the account's owner told, in one
 * transaction, and the caller gets oidc:token_reused. A code consumed
 * again here is left as it is: the provider revokes what it got when it
 * finds it consumed.
 */
export async function consumeArtifact(deps: Pick<IdentityDeps, 'pool'>, input: { kind: string; id: string }, context: RequestContext): Promise<void> {
  const kind = assertKind(input.kind);
  const { outcome } = await withTransaction(deps.pool, context, (db) => consumeIn(db, kind, input.id, context));
  if (outcome === 'reused' && kind === 'RefreshToken') throw new AppError('oidc:token_reused');
}

/**
 * Consumes one artifact inside the caller's transaction: `consumed` when
 * this call used it, `absent` when there is none, `reused` when it was
 * used before. A reused refresh token revokes its grant and mails the
 * owner here; what a reused code revokes is the caller's to say.
 */
async function consumeIn(
  db: pg.ClientBase,
  kind: ArtifactKind,
  id: string,
  context: RequestContext,
): Promise<{ outcome: 'consumed' | 'absent' | 'reused'; grantId?: string | undefined }> {
  const storedId = storedIdOf(kind, id);
  const used = await db.query('UPDATE identity.oidc_artifacts SET consumed_at = now() WHERE kind = $1 AND id = $2 AND consumed_at IS NULL', [kind, storedId]);
  if (used.rowCount === 1) return { outcome: 'consumed' };
  const { rows } = await db.query<{ grant_id: string | null; user_id: string | null; client_id: string }>(
    'SELECT grant_id, user_id, client_id FROM identity.oidc_artifacts WHERE kind = $1 AND id = $2 FOR UPDATE',
    [kind, storedId],
  );
  const row = rows[0];
  if (!row) return { outcome: 'absent' };
  const grantId = row.grant_id ?? undefined;
  if (kind !== 'RefreshToken') return { outcome: 'reused', grantId };
  if (grantId) await revokeGrantIn(db, grantId);
  const owner = row.user_id ? await findUserById(db, row.user_id) : undefined;
  if (owner) {
    const clientName = await clientNameOf(db, row.client_id);
    await queueMail(db, { template: 'security_notice', to: owner.email, handle: owner.handle, notice: 'oidc_token_reused', client_name: clientName }, context);
  }
  return { outcome: 'reused', grantId };
}

/** A client's name for mails: its registered name, or its id for a client of the gateway's configuration. */
async function clientNameOf(db: pg.ClientBase, clientId: string): Promise<string> {
  const { rows } = await db.query<{ name: string | null }>(`SELECT metadata->>'client_name' AS name FROM identity.oidc_clients WHERE client_id = $1`, [clientId]);
  return rows[0]?.name ?? clientId;
}

export async function destroyArtifact(db: pg.Pool, input: { kind: string; id: string }): Promise<void> {
  const kind = assertKind(input.kind);
  await db.query('DELETE FROM identity.oidc_artifacts WHERE kind = $1 AND id = $2', [kind, storedIdOf(kind, input.id)]);
}

/** Deletes a grant and everything issued under it. */
export async function revokeGrantIn(db: pg.ClientBase | pg.Pool, grantId: string): Promise<void> {
  await db.query(`DELETE FROM identity.oidc_artifacts WHERE grant_id = $1 OR (kind = 'Grant' AND id = $1)`, [grantId]);
}

/** Deletes every code and token issued under a grant, keeping the grant (the consent). */
export async function revokeGrantTokens(db: pg.Pool, grantId: string): Promise<void> {
  await db.query(`DELETE FROM identity.oidc_artifacts WHERE grant_id = $1 AND kind <> 'Grant'`, [grantId]);
}

/** An account's newest live grant for a client, and with it what an authorization request reads next. */
export interface FoundUserGrant {
  readonly grantId?: string | undefined;
  readonly grantPayload?: Record<string, unknown> | undefined;
  readonly account?: ArtifactAccount | undefined;
}

/**
 * The newest live grant of an account for a client. With its payload and
 * the account (while enabled), one statement answers the three reads of
 * an authorization request by a signed-in user (docs/performance.md, "The
 * OpenID Provider").
 */
export async function findUserGrant(db: pg.Pool, userId: string, clientId: string, withGrantAndAccount = false): Promise<FoundUserGrant> {
  if (!isUuid(userId)) return {};
  const { rows } = await db.query<AccountColumns & { grant_id: string | null; grant_payload: Record<string, unknown> | null }>(
    `SELECT g.id AS grant_id, CASE WHEN $3 THEN g.payload END AS grant_payload, ${ACCOUNT_COLUMNS}
     FROM (SELECT $1::uuid AS user_id) asked
     LEFT JOIN LATERAL (
       SELECT id, payload FROM identity.oidc_artifacts
       WHERE kind = 'Grant' AND user_id = asked.user_id AND client_id = $2 AND expires_at > now()
       ORDER BY created_at DESC LIMIT 1
     ) g ON true
     LEFT JOIN identity.users u ON $3 AND u.id = asked.user_id AND u.disabled_at IS NULL`,
    [userId, clientId, withGrantAndAccount],
  );
  const row = rows[0];
  return { grantId: row?.grant_id ?? undefined, grantPayload: row?.grant_payload ?? undefined, account: accountOf(row) };
}


/** The clients an account allowed, one entry per client with the union of its grants' scopes, newest first. */
export async function listUserGrants(
  db: pg.Pool,
  userId: string,
): Promise<{ clientId: string; scopes: string[]; createdAt: Date }[]> {
  if (!isUuid(userId)) throw new AppError('validation:invalid_input', 'user_id must be a UUID');
  const { rows } = await db.query<{ client_id: string; scope: string | null; created_at: Date }>(
    `SELECT client_id, payload->'openid'->>'scope' AS scope, created_at FROM identity.oidc_artifacts
     WHERE kind = 'Grant' AND user_id = $1 AND expires_at > now() ORDER BY created_at ASC`,
    [userId],
  );
  const byClient = new Map<string, { clientId: string; scopes: string[]; createdAt: Date }>();
  for (const row of rows) {
    const entry = byClient.get(row.client_id) ?? { clientId: row.client_id, scopes: [], createdAt: row.created_at };
    for (const scope of (row.scope ?? '').split(' ').filter(Boolean)) if (!entry.scopes.includes(scope)) entry.scopes.push(scope);
    byClient.set(row.client_id, entry);
  }
  return [...byClient.values()].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
}

/** Withdraws an account's consent for a client: its grants and every code and token under them. */
export async function revokeUserGrants(deps: Pick<IdentityDeps, 'pool'>, userId: string, clientId: string, context: RequestContext): Promise<void> {
  if (!isUuid(userId)) throw new AppError('validation:invalid_input', 'user_id must be a UUID');
  const revoked = await withTransaction(deps.pool, context, async (db) => {
    const { rows } = await db.query<{ id: string }>(
      `DELETE FROM identity.oidc_artifacts WHERE kind = 'Grant' AND user_id = $1 AND client_id = $2 RETURNING id`,
      [userId, clientId],
    );
    await db.query('DELETE FROM identity.oidc_artifacts WHERE user_id = $1 AND client_id = $2', [userId, clientId]);
    return rows.length;
  });
  if (revoked === 0) throw new AppError('oidc:grant_not_found');
}

/**
 * Revokes every code and token of an account, keeping its consents: what a
 * password change or reset, an email change and a disable do in their own
 * transaction (docs/oidc.md, "Tokens").
 */
export async function revokeUserTokens(db: pg.ClientBase, userId: string): Promise<void> {
  await db.query(`DELETE FROM identity.oidc_artifacts WHERE user_id = $1 AND kind <> 'Grant'`, [userId]);
}

/** Drops artifacts that expired: what nobody can use any more. */
export async function deleteExpiredArtifacts(db: pg.Pool): Promise<void> {
  await db.query('DELETE FROM identity.oidc_artifacts WHERE expires_at < now()');
}
