import type pg from 'pg';
import { isUuid } from '@latchkey/account-fields';
import { signingAlgorithms } from '@latchkey/config';
import { AppError } from '@latchkey/errors';
import { withTransaction } from '@latchkey/db';
import type { RequestContext } from '@latchkey/grpc-kit';
import { jobSubjects, type BackchannelLogoutJob } from '@latchkey/jobs-contract';
import { enqueueJob } from '@latchkey/outbox';
import type { IdentityDeps } from '../identity-deps';

/** How a client hears that a session ended, as registered when the session signed in to it. */
export interface SessionClientSettings {
  readonly backchannelLogoutUri: string;
  readonly sessionRequired: boolean;
  readonly signingAlg: string;
}

/** A client's logout tokens are signed like its ID tokens: with the algorithm it named, else RS256, the default. */
function logoutSigningAlg(value: string): BackchannelLogoutJob['signing_alg'] {
  return signingAlgorithms.find((alg) => alg === value) ?? 'RS256';
}

/** A Latchkey session that signed in to a client (the provider's `sid` is the session's public id). */
export interface SessionClientEntry {
  readonly sessionId: string;
  readonly clientId: string;
  readonly userId: string;
  readonly settings: SessionClientSettings;
}

/**
 * The statement that records a session's sign-in to a client, its
 * parameters numbered from `first`, so that it can follow another write in
 * the same statement; `condition` gates it on that write.
 */
export function sessionClientInsert(entry: SessionClientEntry, first: number, condition = 'true'): { sql: string; params: unknown[] } {
  const [session, client, user, uri, required, alg] = [0, 1, 2, 3, 4, 5].map((offset) => `$${String(first + offset)}`);
  return {
    sql: `INSERT INTO identity.oidc_session_clients (session_id, client_id, user_id, backchannel_logout_uri, session_required, signing_alg)
     SELECT ${session}, ${client}, ${user}::uuid, ${uri}, ${required}::boolean, ${alg} WHERE ${condition}
     ON CONFLICT (session_id, client_id) DO UPDATE SET backchannel_logout_uri = EXCLUDED.backchannel_logout_uri,
       session_required = EXCLUDED.session_required, signing_alg = EXCLUDED.signing_alg`,
    params: [entry.sessionId, entry.clientId, entry.userId, entry.settings.backchannelLogoutUri, entry.settings.sessionRequired, logoutSigningAlg(entry.settings.signingAlg)],
  };
}

/** Records that a Latchkey session signed in to a client. */
export async function recordSessionClient(db: pg.ClientBase, entry: SessionClientEntry): Promise<void> {
  const { sql, params } = sessionClientInsert(entry, 1);
  await db.query(sql, params);
}

/**
 * Latchkey sessions ended (the `session.revoked` event, docs/events.md):
 * the codes and access tokens they got without offline_access end, and one
 * back-channel logout job per client each of them signed in to is queued
 * with the deletion of their records, so that a repeated event finds
 * nothing left and queues nothing twice. With no session ids, every
 * session of the account that signed in to a client before the change
 * ended, except the one the change started.
 */
export async function endSessions(
  deps: Pick<IdentityDeps, 'pool'>,
  input: { userId: string; sessionIds: readonly string[]; keptSessionId: string; endedAt: Date },
  context: RequestContext,
): Promise<number> {
  if (!isUuid(input.userId)) throw new AppError('validation:invalid_input', 'user_id must be a UUID');
  return withTransaction(deps.pool, context, async (db) => {
    const ended =
      input.sessionIds.length > 0
        ? await db.query<SessionClientRow>(
            `DELETE FROM identity.oidc_session_clients WHERE user_id = $1 AND session_id = ANY($2::text[]) RETURNING *`,
            [input.userId, input.sessionIds],
          )
        : await db.query<SessionClientRow>(
            `DELETE FROM identity.oidc_session_clients WHERE user_id = $1 AND session_id <> $2 AND created_at <= $3 RETURNING *`,
            [input.userId, input.keptSessionId, input.endedAt],
          );
    // The codes and access tokens those sessions got end with them; what offline_access got outlives them.
    const endedSessions = [...new Set(ended.rows.map((row) => row.session_id))];
    if (endedSessions.length > 0) {
      await db.query(
        `DELETE FROM identity.oidc_artifacts WHERE user_id = $1 AND kind IN ('AuthorizationCode', 'AccessToken')
           AND payload->>'sid' = ANY($2::text[]) AND NOT (' ' || coalesce(payload->>'scope', '') || ' ') LIKE '% offline_access %'`,
        [input.userId, endedSessions],
      );
    }
    let queued = 0;
    for (const row of ended.rows) {
      if (row.backchannel_logout_uri === '') continue;
      const job: BackchannelLogoutJob = {
        client_id: row.client_id,
        backchannel_logout_uri: row.backchannel_logout_uri,
        user_id: row.user_id,
        session_id: row.session_id,
        session_required: row.session_required,
        signing_alg: logoutSigningAlg(row.signing_alg),
      };
      await enqueueJob(db, jobSubjects.backchannelLogout, job, context);
      queued += 1;
    }
    return queued;
  });
}

interface SessionClientRow {
  session_id: string;
  client_id: string;
  user_id: string;
  backchannel_logout_uri: string;
  session_required: boolean;
  signing_alg: string;
}
