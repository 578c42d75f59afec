import type pg from 'pg';
import type { IdentityClient } from '@latchkey/credential-ledger';
import type { BackupCodeHasher } from './backup-codes';
import type { CodeFailureLimit } from './code-failure-limit';
import type { LoginChallenges } from './login-challenges';
import type { SecretBox } from '@latchkey/secret-box';
import type { SetupTokens } from './setup-tokens';

/** What the TOTP operations need, built once at start. */
export interface TotpDeps {
  readonly pool: pg.Pool;
  readonly secretBox: SecretBox;
  readonly backupCodeHasher: BackupCodeHasher;
  readonly setupTokens: SetupTokens;
  readonly loginChallenges: LoginChallenges;
  readonly failureLimit: CodeFailureLimit;
  /** Keeps the account's TOTP in its credential ledger (totp-ledger.ts). */
  readonly identity: IdentityClient;
  /** TOTP_ISSUER: the name authenticator apps show. */
  readonly issuer: string;
  /** Unix time in milliseconds; a parameter so that tests can move time. */
  readonly now: () => number;
}
