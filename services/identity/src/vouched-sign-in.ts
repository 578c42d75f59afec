import { identityV1 } from '@latchkey/contracts';
import type { RequestContext } from '@latchkey/grpc-kit';
import type pg from 'pg';
import { recordSignIn, type SignInMethodName } from './orgs/org-audit-log';
import type { UserRecord } from './user-store';

const { SIGN_IN_METHOD_PASSKEY, SIGN_IN_METHOD_GOOGLE, SIGN_IN_METHOD_GITHUB } = identityV1.SignInMethod;

/**
 * The methods another service proves and then names to GetUser. A password
 * is recorded where identity checks it; the unnamed provider method is
 * sent where no member signs in yet (a look-up by email, a new account).
 */
const VOUCHED_METHODS = new Map<identityV1.SignInMethod, SignInMethodName>([
  [SIGN_IN_METHOD_PASSKEY, 'passkey'],
  [SIGN_IN_METHOD_GOOGLE, 'google'],
  [SIGN_IN_METHOD_GITHUB, 'github'],
]);

/**
 * Records a sign-in that passkeys or oauth proved in the account's
 * organisations' audit logs (docs/audit.md): a disabled account's is a
 * failed one, as the caller refuses it then, as a password sign-in's is.
 */
export async function recordVouchedSignIn(
  pool: pg.Pool,
  user: Pick<UserRecord, 'id' | 'disabled_at'>,
  signIn: identityV1.SignInMethod | undefined,
  context: RequestContext,
): Promise<void> {
  const method = signIn === undefined ? undefined : VOUCHED_METHODS.get(signIn);
  if (method === undefined) return;
  const outcome = user.disabled_at ? ({ succeeded: false, method, reason: 'account_disabled' } as const) : ({ succeeded: true, method } as const);
  await recordSignIn(pool, user.id, outcome, context);
}
