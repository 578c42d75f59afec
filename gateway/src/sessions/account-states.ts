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

export interface AccountStatesOptions {
  /** How long an answer is used before identity is asked again (AUTH_ACCOUNT_STATE_MAX_AGE_MS). */
  readonly maxAgeMs: number;
  /** How long an older answer still stands in while identity is unavailable. */
  readonly staleIfUnavailableMs: number;
  /** Accounts remembered at most; the least recently fetched go first. */
  readonly maxEntries: number;
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
   * The account's state; `context` is made only when identity must be asked,
   * since a request context costs the hot path. While identity is
   * unavailable, an answer younger than `staleIfUnavailableMs` stands in;
   * without one the caller gets `service:unavailable`.
   */
  async get(userId: string, context: () => RequestContext): Promise<AccountState | undefined> {
    const entry = this.entries.get(userId);
    const now = this.clock();
    if (entry && now - entry.fetchedAt < this.options.maxAgeMs) return entry.state;
    try {
      return await this.fetch(userId, context);
    } catch (error) {
      const unavailable = error instanceof AppError && error.code === 'service:unavailable';
      if (unavailable && entry && now - entry.fetchedAt < this.options.staleIfUnavailableMs) return entry.state;
      throw error;
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
