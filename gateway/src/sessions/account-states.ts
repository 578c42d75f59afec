import { AppError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';

/** What a session's validity depends on beside its own record. */
export interface AccountState {
  /** The account's credential epoch: sessions started under a lower one are revoked. */
  readonly sessionEpoch: number;
  /** A disabled account's sessions are refused, whatever their epoch. */
  readonly disabled: boolean;
}

/** Asks the owner of accounts (identity); undefined for an account that no longer exists. */
export type AccountStateSource = (userId: string, context: RequestContext) => Promise<AccountState | undefined>;

/**
 * What is known of an account: its state, `deleted`, or `unknown` while
 * identity is unavailable and this gateway has never had an answer.
 */
export type AccountLookup = AccountState | 'deleted' | 'unknown';

export interface AccountStatesOptions {
  /** How long an answer is used before identity is asked again (AUTH_ACCOUNT_STATE_MAX_AGE_MS). */
  readonly maxAgeMs: number;
  /** Accounts remembered at most; the least recently fetched go first. */
  readonly maxEntries: number;
  /** Called for each lookup answered `unknown`, so that an outage's effect can be counted. */
  readonly onUnknown?: () => void;
}

interface Entry {
  readonly state: AccountState | undefined;
  readonly fetchedAt: number;
}

/**
 * The accounts' credential epochs and disabled flags, as identity keeps them
 * in PostgreSQL, remembered for a few seconds (docs/architecture.md,
 * "Sessions"). Every use of a session compares its epoch with them, so a
 * session that Redis brought back (a failover to a lagging replica, a
 * restore of an older snapshot) or that a revocation job has yet to end is
 * refused within `maxAgeMs`; an active account costs identity one call per
 * `maxAgeMs`, and a request served from memory none. Concurrent misses of
 * one account share one call.
 *
 * While identity is unavailable the last answer stands in, however old, and
 * an account never asked about is `unknown`: the caller admits its session
 * on the session's own record, as it did before this check existed. The
 * check is the second line behind deleting sessions in Redis, for a Redis
 * that lost the deletion; refusing every signed-in request during an
 * identity outage would take down what needs no identity at all (posts,
 * the account view kept in the session) to cover the rare session that a
 * Redis failover and an identity outage bring back together
 * (docs/security.md).
 */
export class AccountStates {
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<AccountState | undefined>>();

  constructor(
    private readonly source: AccountStateSource,
    private readonly options: AccountStatesOptions,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * What is known of the account; `context` is made only when identity must
   * be asked, since a request context costs the hot path.
   */
  async get(userId: string, context: () => RequestContext): Promise<AccountLookup> {
    const entry = this.entries.get(userId);
    if (entry && this.clock() - entry.fetchedAt < this.options.maxAgeMs) return entry.state ?? 'deleted';
    try {
      return (await this.fetch(userId, context)) ?? 'deleted';
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'service:unavailable')) throw error;
      if (entry) return entry.state ?? 'deleted';
      this.options.onUnknown?.();
      return 'unknown';
    }
  }

  private fetch(userId: string, context: () => RequestContext): Promise<AccountState | undefined> {
    const pending = this.inFlight.get(userId);
    if (pending) return pending;
    const fetchedAt = this.clock();
    const request = this.source(userId, context())
      .then((state) => {
        this.store(userId, { state, fetchedAt });
        return state;
      })
      .finally(() => this.inFlight.delete(userId));
    this.inFlight.set(userId, request);
    return request;
  }

  private store(userId: string, entry: Entry): void {
    // Re-inserted, so that the Map's order is the order of fetching and the oldest go first.
    this.entries.delete(userId);
    this.entries.set(userId, entry);
    if (this.entries.size > this.options.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}
