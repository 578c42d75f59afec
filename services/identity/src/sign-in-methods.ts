import type pg from 'pg';
import { identityV1 } from '@latchkey/contracts';
import { AppError, type FieldError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import { withTransaction } from '@latchkey/db';
import type { IdentityDeps } from './identity-deps';

/**
 * The ledger of every account's ways in (docs/architecture.md, "Sign-in
 * methods"). Identity lists the password itself, in the statement that sets
 * or drops it (user-store.ts); passkeys and oauth list theirs. A removal
 * runs in three steps so that a failure anywhere errs on the safe side:
 *
 * 1. begin: with the account's row locked, refuse the last way in, else mark
 *    the method `removal_begun_at`. A marked method still works and stays
 *    listed, but counts as gone to every later removal, so two removals of
 *    an account, in whichever units, are counted one after the other;
 * 2. the owning unit deletes its row;
 * 3. finish: the entry goes (or cancel: the mark goes, when step 2 failed).
 *
 * A unit that dies between the steps leaves the method marked: still
 * listed, not counted, never the other way round (listed and counted while
 * already deleted, which could let the last real way in go).
 */

const KIND_OF: Partial<Record<identityV1.SignInMethodKind, MethodKind>> = {
  [identityV1.SignInMethodKind.SIGN_IN_METHOD_KIND_PASSWORD]: 'password',
  [identityV1.SignInMethodKind.SIGN_IN_METHOD_KIND_PASSKEY]: 'passkey',
  [identityV1.SignInMethodKind.SIGN_IN_METHOD_KIND_PROVIDER]: 'provider',
};
const ENUM_OF: Record<MethodKind, identityV1.SignInMethodKind> = {
  password: identityV1.SignInMethodKind.SIGN_IN_METHOD_KIND_PASSWORD,
  passkey: identityV1.SignInMethodKind.SIGN_IN_METHOD_KIND_PASSKEY,
  provider: identityV1.SignInMethodKind.SIGN_IN_METHOD_KIND_PROVIDER,
};
/** What the owning unit answers over HTTP for its last way in (docs/api.md, "Error codes"). */
const LAST_METHOD_CODE = { passkey: 'passkey:last_login_method', provider: 'oauth:last_login_method' } as const;

type MethodKind = 'password' | 'passkey' | 'provider';
/** A method another unit owns: the password is identity's own to list and drop. */
type OwnedElsewhere = Exclude<MethodKind, 'password'>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A passkey's id or a provider's name. */
const REFERENCE = /^[0-9A-Za-z_-]{1,64}$/;
/** Per call: a unit lists what it had before the ledger in batches of this many. */
export const MAX_METHODS_PER_CALL = 500;

interface MethodRow {
  kind: MethodKind;
  reference: string;
  added_at: Date;
  removal_begun_at: Date | null;
}

/** The account's methods, oldest first. */
export async function listSignInMethods(db: pg.Pool, userId: string): Promise<identityV1.SignInMethod[]> {
  if (!UUID.test(userId)) throw AppError.validation([{ field: 'user_id', message: 'must be a UUID' }]);
  const { rows } = await db.query<MethodRow>(
    `SELECT kind, reference, added_at, removal_begun_at FROM identity.sign_in_methods
      WHERE user_id = $1 ORDER BY added_at, kind, reference`,
    [userId],
  );
  return rows.map((row) => ({ kind: ENUM_OF[row.kind], reference: row.reference, addedAt: row.added_at, removalBegun: row.removal_begun_at !== null }));
}

function ownedElsewhere(kind: identityV1.SignInMethodKind, field: string): { kind?: OwnedElsewhere; errors: FieldError[] } {
  const named = KIND_OF[kind];
  if (named === undefined || named === 'password') return { errors: [{ field, message: 'must be a passkey or a provider' }] };
  return { kind: named, errors: [] };
}

function checkMethod(input: { userId: string; kind: identityV1.SignInMethodKind; reference: string }, prefix = ''): { kind?: OwnedElsewhere; errors: FieldError[] } {
  const { kind, errors } = ownedElsewhere(input.kind, `${prefix}kind`);
  if (!UUID.test(input.userId)) errors.push({ field: `${prefix}user_id`, message: 'must be a UUID' });
  if (!REFERENCE.test(input.reference)) errors.push({ field: `${prefix}reference`, message: 'must be a passkey id or a provider name' });
  return { kind, errors };
}

function validMethod(input: { userId: string; kind: identityV1.SignInMethodKind; reference: string }): OwnedElsewhere {
  const { kind, errors } = checkMethod(input);
  if (errors.length > 0) throw AppError.validation(errors);
  return kind!;
}

/** Lists methods their owners stored; idempotent, and silent for accounts deleted meanwhile. */
export async function recordSignInMethods(deps: Pick<IdentityDeps, 'pool'>, methods: readonly identityV1.SignInMethodOfUser[]): Promise<void> {
  if (methods.length === 0 || methods.length > MAX_METHODS_PER_CALL) {
    throw AppError.validation([{ field: 'methods', message: `must hold 1 to ${MAX_METHODS_PER_CALL} methods` }]);
  }
  const checked = methods.map((method, index) => ({ method, ...checkMethod(method, `methods[${index}].`) }));
  const errors = checked.flatMap((entry) => entry.errors);
  if (errors.length > 0) throw AppError.validation(errors);
  await deps.pool.query(
    `INSERT INTO identity.sign_in_methods (user_id, kind, reference, added_at)
     SELECT method.user_id, method.kind, method.reference, coalesce(method.added_at, now())
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[]) AS method (user_id, kind, reference, added_at)
       JOIN identity.users ON users.id = method.user_id
     ON CONFLICT (user_id, kind, reference) DO NOTHING`,
    [
      checked.map(({ method }) => method.userId.toLowerCase()),
      checked.map(({ kind }) => kind),
      checked.map(({ method }) => method.reference),
      checked.map(({ method }) => method.addedAt ?? null),
    ],
  );
}

/**
 * Step 1 of a removal: with the account's row locked, so that removals of
 * the account are counted one after the other whichever unit owns them,
 * refuses the last way in and marks the method. A method the ledger lacks
 * (its owner failed to list it) is listed now, marked.
 */
export async function beginSignInMethodRemoval(
  deps: Pick<IdentityDeps, 'pool'>,
  input: { userId: string; kind: identityV1.SignInMethodKind; reference: string },
  context: RequestContext,
): Promise<void> {
  const kind = validMethod(input);
  await withTransaction(deps.pool, context, async (db) => {
    const { rowCount } = await db.query('SELECT 1 FROM identity.users WHERE id = $1 FOR UPDATE', [input.userId]);
    if (rowCount === 0) throw new AppError('auth:unauthorized');
    const { rows } = await db.query<{ others: number }>(
      `SELECT count(*)::int AS others FROM identity.sign_in_methods
        WHERE user_id = $1 AND removal_begun_at IS NULL AND NOT (kind = $2 AND reference = $3)`,
      [input.userId, kind, input.reference],
    );
    if ((rows[0]?.others ?? 0) === 0) throw new AppError(LAST_METHOD_CODE[kind]);
    await db.query(
      `INSERT INTO identity.sign_in_methods (user_id, kind, reference, removal_begun_at) VALUES ($1, $2, $3, now())
       ON CONFLICT (user_id, kind, reference) DO UPDATE SET removal_begun_at = now()`,
      [input.userId, kind, input.reference],
    );
  });
}

/** The owner kept the method after all: it counts as a way in again. */
export async function cancelSignInMethodRemoval(
  deps: Pick<IdentityDeps, 'pool'>,
  input: { userId: string; kind: identityV1.SignInMethodKind; reference: string },
): Promise<void> {
  const kind = validMethod(input);
  await deps.pool.query('UPDATE identity.sign_in_methods SET removal_begun_at = NULL WHERE user_id = $1 AND kind = $2 AND reference = $3', [
    input.userId,
    kind,
    input.reference,
  ]);
}

/** The owner deleted the methods: their entries go. Idempotent. */
export async function finishSignInMethodRemovals(
  deps: Pick<IdentityDeps, 'pool'>,
  input: { userId: string; kind: identityV1.SignInMethodKind; references: readonly string[] },
): Promise<void> {
  const { kind, errors } = ownedElsewhere(input.kind, 'kind');
  if (!UUID.test(input.userId)) errors.push({ field: 'user_id', message: 'must be a UUID' });
  if (input.references.length > MAX_METHODS_PER_CALL || !input.references.every((reference) => REFERENCE.test(reference))) {
    errors.push({ field: 'references', message: `must be at most ${MAX_METHODS_PER_CALL} passkey ids or provider names` });
  }
  if (errors.length > 0) throw AppError.validation(errors);
  if (input.references.length === 0) return;
  await deps.pool.query('DELETE FROM identity.sign_in_methods WHERE user_id = $1 AND kind = $2 AND reference = ANY($3::text[])', [
    input.userId,
    kind,
    [...input.references],
  ]);
}
