import type pg from 'pg';
import { isUuid } from '@latchkey/account-fields';
import { AppError, type FieldError } from '@latchkey/errors';
import { withTransaction } from '@latchkey/db';
import type { RequestContext } from '@latchkey/grpc-kit';
import type { IdentityDeps } from '../identity-deps';
import { userCodeHashOf } from './artifact-hashes';
import { FOREIGN_KEY_VIOLATION } from './oidc-artifacts';
import { recordSessionClient, type SessionClientSettings } from './oidc-session-clients';

/** Who allowed a device, as its tokens will say (oidc.v1 ApproveDeviceCode). */
export interface DeviceApproval {
  readonly userCode: string;
  readonly userId: string;
  readonly grantId: string;
  readonly scope: string;
  readonly sessionId: string;
  readonly amr: readonly string[];
  readonly acr: string;
  readonly authTime?: Date | undefined;
  readonly sessionClient?: SessionClientSettings | undefined;
  /** The claims request the device's tokens carry, JSON; empty for none. */
  readonly claimsJson: string;
}

/** A device code's claims request, as a code's: the organisation it asked for (docs/oidc.md, "Organisations"). */
const MAX_CLAIMS_JSON_LENGTH = 4096;

/** What the provider answers a device that a person refused (RFC 8628, section 3.5), as its own device flow writes it. */
const DENIAL = { error: 'access_denied', errorDescription: 'End-User aborted interaction' } as const;

/**
 * A device code still waiting for its person, by the user code's hash: live,
 * not used, neither allowed nor refused. The row is locked for the answer.
 */
async function waitingDeviceCode(db: pg.ClientBase, userCode: string): Promise<{ id: string; clientId: string } | undefined> {
  const { rows } = await db.query<{ id: string; client_id: string }>(
    `SELECT id, client_id FROM identity.oidc_artifacts
     WHERE kind = 'DeviceCode' AND user_code = $1 AND expires_at > now() AND consumed_at IS NULL AND user_id IS NULL AND NOT payload ? 'error'
     FOR UPDATE`,
    [userCodeHashOf(userCode)],
  );
  const row = rows[0];
  return row && { id: row.id, clientId: row.client_id };
}

/** The claims request of an approval: a JSON object of up to 4 KiB, or none (undefined); null when it is neither. */
function claimsOf(claimsJson: string): Record<string, unknown> | null | undefined {
  if (claimsJson === '') return undefined;
  if (claimsJson.length > MAX_CLAIMS_JSON_LENGTH) return null;
  try {
    const claims: unknown = JSON.parse(claimsJson);
    return typeof claims === 'object' && claims !== null && !Array.isArray(claims) ? (claims as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function checkApproval(input: DeviceApproval): { authTime: Date; claims: Record<string, unknown> | undefined } {
  const errors: FieldError[] = [];
  if (input.userCode === '') errors.push({ field: 'user_code', message: 'is required' });
  if (!isUuid(input.userId)) errors.push({ field: 'user_id', message: 'must be a UUID' });
  if (input.grantId === '') errors.push({ field: 'grant_id', message: 'is required' });
  if (input.sessionId === '') errors.push({ field: 'session_id', message: 'is required' });
  if (input.authTime === undefined) errors.push({ field: 'auth_time', message: 'is required' });
  const claims = claimsOf(input.claimsJson);
  if (claims === null) errors.push({ field: 'claims_json', message: `must be a JSON object of up to ${MAX_CLAIMS_JSON_LENGTH} characters` });
  if (errors.length > 0 || input.authTime === undefined || claims === null) throw AppError.validation(errors);
  return { authTime: input.authTime, claims };
}

/**
 * Records that an account allowed the device showing `userCode`: the
 * device code's payload gets what the provider's own device flow would
 * write on approval, and its next poll is answered with tokens. The grant
 * must be the account's for the device's client, so that a caller cannot
 * hand a device another account's consent. Like a code that names a
 * session, it records that the session signed in to the client.
 */
export async function approveDeviceCode(deps: Pick<IdentityDeps, 'pool'>, input: DeviceApproval, context: RequestContext): Promise<void> {
  const { authTime, claims } = checkApproval(input);
  try {
    await withTransaction(deps.pool, context, async (db) => {
      const code = await waitingDeviceCode(db, input.userCode);
      if (!code) throw new AppError('oidc:user_code_invalid');
      const grant = await db.query(
        `SELECT 1 FROM identity.oidc_artifacts WHERE kind = 'Grant' AND id = $1 AND user_id = $2 AND client_id = $3 AND expires_at > now()`,
        [input.grantId, input.userId, code.clientId],
      );
      if (grant.rowCount !== 1) throw AppError.validation([{ field: 'grant_id', message: "must be the account's grant for the device's client" }]);
      const approval = {
        accountId: input.userId,
        acr: input.acr,
        amr: [...input.amr],
        authTime: Math.floor(authTime.getTime() / 1000),
        grantId: input.grantId,
        scope: input.scope,
        sid: input.sessionId,
        ...(claims === undefined ? {} : { claims }),
      };
      await db.query(`UPDATE identity.oidc_artifacts SET payload = payload || $2::jsonb, user_id = $3, grant_id = $4 WHERE kind = 'DeviceCode' AND id = $1`, [
        code.id,
        approval,
        input.userId,
        input.grantId,
      ]);
      if (input.sessionClient) {
        await recordSessionClient(db, { sessionId: input.sessionId, clientId: code.clientId, userId: input.userId, settings: input.sessionClient });
      }
    });
  } catch (error) {
    // The account's foreign key: it is gone.
    if ((error as { code?: string }).code === FOREIGN_KEY_VIOLATION) throw new AppError('user:not_found');
    throw error;
  }
}

/** Records that the person refused the device showing `userCode`; a user code no device code waits for changes nothing. */
export async function denyDeviceCode(deps: Pick<IdentityDeps, 'pool'>, userCode: string, context: RequestContext): Promise<void> {
  if (userCode === '') throw AppError.validation([{ field: 'user_code', message: 'is required' }]);
  await withTransaction(deps.pool, context, async (db) => {
    const code = await waitingDeviceCode(db, userCode);
    if (code) await db.query(`UPDATE identity.oidc_artifacts SET payload = payload || $2::jsonb WHERE kind = 'DeviceCode' AND id = $1`, [code.id, DENIAL]);
  });
}
