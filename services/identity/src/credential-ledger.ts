import type pg from 'pg';
import { isUuid } from '@latchkey/account-fields';
import { identityV1 } from '@latchkey/contracts';
import { AppError, type FieldError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import { withTransaction } from '@latchkey/db';
import type { IdentityDeps } from './identity-deps';

/**
 * The ledger of every account's credentials (docs/architecture.md, "The
 * credential ledger"), in the spirit of Ory Kratos's one place for an
 * identity's credentials: a row per credential with its kind, its factor
 * and its state. Two rules read the same rows, each erring on its own safe
 * side:
 *
 * - "is this the last way in?" counts the active first factors, so that a
 *   credential being added or removed never lets another removal through;
 * - "may a second factor be on?" counts every second factor in any state,
 *   so that no sign-in skips the second step of a TOTP being turned on.
 *
 * Identity keeps the password itself (user-store.ts). The other kinds are
 * written by their owners alone, with the account locked in their own
 * database: reserve (pending, or removing), change their own rows, then
 * settle the account with what they hold. Their sweeps settle whatever a
 * failure between the steps left behind (packages/credential-ledger).
 */

/** A kind another unit owns; the password is identity's own. */
type OwnedKind = 'passkey' | 'provider' | 'totp';

/**
 * The unit that holds each kind, as its certificate names it (docs/operations.md,
 * "Mutual TLS"): it alone writes its kind's rows, so that a taken-over oauth
 * or passkeys cannot tell the ledger that an account's TOTP is gone.
 */
export const OWNER_OF: Readonly<Record<OwnedKind, string>> = { passkey: 'passkeys', provider: 'oauth', totp: 'totp' };

const OWNED_KINDS: Partial<Record<identityV1.CredentialKind, OwnedKind>> = {
  [identityV1.CredentialKind.CREDENTIAL_KIND_PASSKEY]: 'passkey',
  [identityV1.CredentialKind.CREDENTIAL_KIND_PROVIDER]: 'provider',
  [identityV1.CredentialKind.CREDENTIAL_KIND_TOTP]: 'totp',
};
/** What the owning unit answers over HTTP for its last way in (docs/api.md, "Error codes"). */
const LAST_WAY_IN_CODE = { passkey: 'passkey:last_login_method', provider: 'oauth:last_login_method' } as const;

/** How each kind names one credential of an account: the passkey's id, the provider's name, nothing for the one TOTP. */
const REFERENCE: Record<OwnedKind, { readonly valid: (reference: string) => boolean; readonly rule: string }> = {
  passkey: { valid: isUuid, rule: "must be the passkey's id" },
  provider: { valid: (reference) => /^[a-z][a-z0-9_-]{0,31}$/.test(reference), rule: "must be the provider's name" },
  totp: { valid: (reference) => reference === '', rule: 'must be empty for TOTP' },
};
/** Per SettleCredentials call. */
const MAX_ACCOUNTS_PER_SETTLEMENT = 100;
const MAX_CREDENTIALS_PER_SETTLEMENT = 1_000;
const MAX_UNSETTLED_PAGE = 500;

/**
 * The kind a request names, which must be the calling unit's own. Over
 * plaintext (a local stack, tests) no caller is known, as for every
 * allow-list of the catalogue.
 */
function ownedKind(kind: identityV1.CredentialKind, context: Pick<RequestContext, 'caller' | 'logger'>, errors: FieldError[]): OwnedKind {
  const owned = OWNED_KINDS[kind];
  if (!owned) {
    errors.push({ field: 'kind', message: 'must be a passkey, a provider or TOTP' });
    return 'passkey';
  }
  if (context.caller !== undefined && context.caller !== OWNER_OF[owned]) {
    context.logger.warn({ caller: context.caller, kind: owned }, 'credential ledger call refused: the caller does not hold that kind');
    errors.push({ field: 'kind', message: 'must be a kind the calling unit holds' });
  }
  return owned;
}

function checkUserId(userId: string, field: string, errors: FieldError[]): void {
  if (!isUuid(userId)) errors.push({ field, message: 'must be a UUID' });
}

function checkReference(kind: OwnedKind, reference: string, field: string, errors: FieldError[]): void {
  if (!REFERENCE[kind].valid(reference)) errors.push({ field, message: REFERENCE[kind].rule });
}

/** One credential of an account, named as a request names it. */
function validCredential(
  input: { userId: string; kind: identityV1.CredentialKind; reference: string },
  context: RequestContext,
): { userId: string; kind: OwnedKind; reference: string } {
  const errors: FieldError[] = [];
  const kind = ownedKind(input.kind, context, errors);
  checkUserId(input.userId, 'user_id', errors);
  if (errors.length === 0) checkReference(kind, input.reference, 'reference', errors);
  if (errors.length > 0) throw AppError.validation(errors);
  return { userId: input.userId.toLowerCase(), kind, reference: input.reference };
}

/**
 * The owner is about to store a credential: it is pending until settled.
 * Whatever the ledger held under that reference is stale (the owner, with
 * the account locked, holds nothing under it) and is replaced.
 */
export async function reserveCredential(deps: Pick<IdentityDeps, 'pool'>, input: identityV1.ReserveCredentialRequest, context: RequestContext): Promise<void> {
  const { userId, kind, reference } = validCredential(input, context);
  await withTransaction(deps.pool, context, async (db) => {
    const { rowCount } = await db.query('SELECT 1 FROM identity.users WHERE id = $1 FOR KEY SHARE', [userId]);
    if (rowCount === 0) throw new AppError('auth:unauthorized');
    await db.query(
      `INSERT INTO identity.credentials (user_id, kind, reference, state, opened_account) VALUES ($1, $2, $3, 'pending', $4)
       ON CONFLICT (user_id, kind, reference) DO UPDATE
         SET state = 'pending', added_at = now(), changed_at = now(), suspended_at = NULL, taken_back_by = NULL, opened_account = EXCLUDED.opened_account`,
      [userId, kind, reference, kind === 'provider' && input.openedAccount],
    );
  });
}

/**
 * The owner is about to delete a credential. With the account's row locked,
 * so that removals in every unit are counted one after the other, a first
 * factor is refused when no other active one would be left; the credential
 * is then removing, which no later removal counts as a way in.
 */
export async function reserveCredentialRemoval(
  deps: Pick<IdentityDeps, 'pool'>,
  input: identityV1.ReserveCredentialRemovalRequest,
  context: RequestContext,
): Promise<void> {
  const { userId, kind, reference } = validCredential(input, context);
  await withTransaction(deps.pool, context, async (db) => {
    const { rowCount } = await db.query('SELECT 1 FROM identity.users WHERE id = $1 FOR UPDATE', [userId]);
    if (rowCount === 0) throw new AppError('auth:unauthorized');
    if (kind !== 'totp') {
      const { rows } = await db.query<{ others: number }>(
        `SELECT count(*)::int AS others FROM identity.credentials
          WHERE user_id = $1 AND factor = 'first' AND state = 'active' AND NOT (kind = $2 AND reference = $3)`,
        [userId, kind, reference],
      );
      if ((rows[0]?.others ?? 0) === 0) throw new AppError(LAST_WAY_IN_CODE[kind]);
    }
    await db.query(
      `INSERT INTO identity.credentials (user_id, kind, reference, state) VALUES ($1, $2, $3, 'removing')
       ON CONFLICT (user_id, kind, reference) DO UPDATE SET state = 'removing', changed_at = now()`,
      [userId, kind, reference],
    );
  });
}

interface HeldRow {
  readonly userId: string;
  readonly reference: string;
  readonly addedAt: Date;
  readonly suspendedAt: Date | null;
  readonly openedAccount: boolean;
}

function validSettlement(request: identityV1.SettleCredentialsRequest, context: RequestContext): { kind: OwnedKind; userIds: string[]; held: HeldRow[] } {
  const errors: FieldError[] = [];
  const kind = ownedKind(request.kind, context, errors);
  const credentials = request.accounts.reduce((sum, account) => sum + account.credentials.length, 0);
  if (request.accounts.length === 0 || request.accounts.length > MAX_ACCOUNTS_PER_SETTLEMENT || credentials > MAX_CREDENTIALS_PER_SETTLEMENT) {
    errors.push({ field: 'accounts', message: `must hold 1 to ${MAX_ACCOUNTS_PER_SETTLEMENT} accounts and at most ${MAX_CREDENTIALS_PER_SETTLEMENT} credentials` });
  }
  const userIds = new Set<string>();
  const held: HeldRow[] = [];
  request.accounts.forEach((account, index) => {
    const field = `accounts[${index}]`;
    checkUserId(account.userId, `${field}.user_id`, errors);
    const userId = account.userId.toLowerCase();
    if (userIds.has(userId)) errors.push({ field: `${field}.user_id`, message: 'names an account named before' });
    userIds.add(userId);
    const references = new Set<string>();
    account.credentials.forEach((credential, position) => {
      const at = `${field}.credentials[${position}]`;
      checkReference(kind, credential.reference, `${at}.reference`, errors);
      if (references.has(credential.reference)) errors.push({ field: `${at}.reference`, message: 'names a credential named before' });
      references.add(credential.reference);
      if (!credential.addedAt) errors.push({ field: `${at}.added_at`, message: 'is required' });
      held.push({
        userId,
        reference: credential.reference,
        addedAt: credential.addedAt ?? new Date(0),
        suspendedAt: credential.suspendedAt ?? null,
        openedAccount: kind === 'provider' && credential.openedAccount,
      });
    });
  });
  if (errors.length > 0) throw AppError.validation(errors);
  return { kind, userIds: [...userIds], held };
}

/**
 * Makes the ledger's credentials of one kind, for each account named, what
 * their owner holds. A reset's take-back of a credential the owner still
 * holds stands (the owner is told, and removes it), except for the
 * connection the account was created with, which no reset takes back; and
 * a credential the ledger learns of only now is held to the resets the
 * account had.
 */
export async function settleCredentials(
  deps: Pick<IdentityDeps, 'pool'>,
  request: identityV1.SettleCredentialsRequest,
  context: RequestContext,
): Promise<identityV1.TakeBack[]> {
  const { kind, userIds, held } = validSettlement(request, context);
  return withTransaction(deps.pool, context, async (db) => {
    // Locked against a deletion of the account meanwhile, which would fail the inserts below.
    const { rows: accounts } = await db.query<{ id: string }>('SELECT id FROM identity.users WHERE id = ANY($1::uuid[]) ORDER BY id FOR KEY SHARE', [userIds]);
    const existing = accounts.map((account) => account.id);
    if (existing.length === 0) return [];
    const columns = [held.map((row) => row.userId), held.map((row) => row.reference)];
    await db.query(
      `DELETE FROM identity.credentials AS credential
        WHERE credential.kind = $1 AND credential.user_id = ANY($2::uuid[])
          AND NOT EXISTS (SELECT FROM unnest($3::uuid[], $4::text[]) AS held (user_id, reference)
                           WHERE held.user_id = credential.user_id AND held.reference = credential.reference)`,
      [kind, existing, ...columns],
    );
    await db.query(
      `INSERT INTO identity.credentials AS credential (user_id, kind, reference, state, added_at, suspended_at, opened_account)
       SELECT held.user_id, $1, held.reference, 'active', held.added_at, held.suspended_at, held.opened_account
         FROM unnest($2::uuid[], $3::text[], $4::timestamptz[], $5::timestamptz[], $6::boolean[])
              AS held (user_id, reference, added_at, suspended_at, opened_account)
        WHERE held.user_id = ANY($7::uuid[])
       ON CONFLICT (user_id, kind, reference) DO UPDATE SET
         state = CASE WHEN credential.taken_back_by IS NULL OR EXCLUDED.opened_account THEN 'active' ELSE 'removing' END,
         taken_back_by = CASE WHEN EXCLUDED.opened_account THEN NULL ELSE credential.taken_back_by END,
         changed_at = now(), added_at = EXCLUDED.added_at, suspended_at = EXCLUDED.suspended_at, opened_account = EXCLUDED.opened_account`,
      [
        kind,
        ...columns,
        held.map((row) => row.addedAt),
        held.map((row) => row.suspendedAt),
        held.map((row) => row.openedAccount),
        existing,
      ],
    );
    if (kind !== 'totp') {
      // A credential the ledger learns of late (its owner's settlement failed, or a unit of an earlier
      // release stored it) is taken back by a reset whose window it falls in, as it would have been.
      await db.query(
        `UPDATE identity.credentials AS credential SET state = 'removing', taken_back_by = reset.id, changed_at = now()
           FROM identity.password_resets AS reset
          WHERE credential.kind = $1 AND credential.user_id = ANY($2::uuid[]) AND reset.user_id = credential.user_id
            AND credential.taken_back_by IS NULL AND NOT credential.opened_account
            AND credential.added_at > reset.methods_added_after AND credential.added_at < reset.reset_at`,
        [kind, existing],
      );
    }
    const { rows } = await db.query<{ user_id: string; reference: string; taken_back_by: string }>(
      `SELECT user_id, reference, taken_back_by FROM identity.credentials
        WHERE kind = $1 AND user_id = ANY($2::uuid[]) AND taken_back_by IS NOT NULL ORDER BY user_id, reference`,
      [kind, existing],
    );
    return rows.map((row) => ({ userId: row.user_id, reference: row.reference, resetId: row.taken_back_by }));
  });
}

/** A page of the accounts whose credentials of a kind are pending or removing since before `changedBefore`. */
export async function listUnsettledCredentials(
  db: pg.Pool,
  request: identityV1.ListUnsettledCredentialsRequest,
  context: RequestContext,
): Promise<string[]> {
  const errors: FieldError[] = [];
  const kind = ownedKind(request.kind, context, errors);
  if (request.afterUserId !== '') checkUserId(request.afterUserId, 'after_user_id', errors);
  if (!Number.isInteger(request.limit) || request.limit < 1 || request.limit > MAX_UNSETTLED_PAGE) {
    errors.push({ field: 'limit', message: `must be 1 to ${MAX_UNSETTLED_PAGE}` });
  }
  if (errors.length > 0) throw AppError.validation(errors);
  const { rows } = await db.query<{ user_id: string }>(
    `SELECT DISTINCT user_id FROM identity.credentials
      WHERE kind = $1 AND state <> 'active' AND changed_at < coalesce($2, now()) AND ($3::uuid IS NULL OR user_id > $3)
      ORDER BY user_id LIMIT $4`,
    [kind, request.changedBefore ?? null, request.afterUserId === '' ? null : request.afterUserId, request.limit],
  );
  return rows.map((row) => row.user_id);
}

/**
 * In a password reset's transaction: the passkeys and provider links added
 * in its window no longer count as ways in, and their owners remove them
 * (docs/security.md, "A reset takes back what an intruder added"). The
 * connection a provider sign-up created the account with stays. A
 * credential an earlier reset took back stays that reset's.
 */
export async function takeBackRecentCredentials(
  db: pg.ClientBase,
  reset: { readonly userId: string; readonly resetId: string; readonly resetAt: Date; readonly methodsAddedAfter: Date },
): Promise<void> {
  await db.query(
    `UPDATE identity.credentials SET state = 'removing', taken_back_by = coalesce(taken_back_by, $2), changed_at = now()
      WHERE user_id = $1 AND kind IN ('passkey', 'provider') AND NOT opened_account AND added_at > $3 AND added_at < $4`,
    [reset.userId, reset.resetId, reset.methodsAddedAfter, reset.resetAt],
  );
}
