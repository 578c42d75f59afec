import { AppError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';

/** What a session's validity depends on beside its own record. */
export interface AccountState {
  /** The account's credential epoch: sessions started under a lower one are revoked. */
  readonly sessionEpoch: number;
  /** A disabled account's sessions are refused, whatever their epoch. */
  readonly disabled: boolean;
  /**
   * The account's sessions that ended one by one (a logout, a revocation,
   * a trim), as identity recorded them; absent when identity answered none
   * (an identity older than the record).
   */
  readonly endedSessions?: EndedSessions | undefined;
}

/** Sessions of an account that ended and stay refused, whatever Redis holds. */
export interface EndedSessions {
  /** Public ids: the most recently ended, and the session asked about if it ended. */
  readonly ids: ReadonlySet<string>;
  /**
   * Whether `ids` names every ended session of the account. When not, a
   * session it does not name may have ended too, and is asked about by its id.
   */
  readonly complete: boolean;
}

/**
 * Asks the owner of accounts (identity); undefined for an account that no
 * longer exists. With `sessionId`, the answer's ended sessions name that
 * session if it ended, however long the account's list.
 */
export type AccountStateSource = (userId: string, sessionId: string | undefined, context: RequestContext) => Promise<AccountState | undefined>;

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
 * The accounts' credential epochs, disabled flags and ended sessions, as
 * identity keeps them in PostgreSQL, remembered for a few seconds
 * (docs/architecture.md, "Sessions"). Every use of a session is held to
 * them, so a session that Redis brought back (a failover to a lagging
 * replica, a restore of an older snapshot) or that a revocation job has yet
 * to end is refused within `maxAgeMs`; an active account costs identity one
 * call per `maxAgeMs`, and a request served from memory none. Concurrent
 * misses of one account share one call.
 *
 * Identity lists an account's most recently ended sessions only; for an
 * account that ended more (a script signing in and out all day), a session
 * the list does not name is asked about by its id, and that answer is
 * remembered as long.
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
  /** Sessions asked about by id, and not ended then, of accounts whose list of ended sessions is incomplete: when they were asked about. */
  private readonly checkedSessions = new Map<string, number>();
  private readonly inFlight = new Map<string, Promise<AccountState | undefined>>();

  constructor(
    private readonly source: AccountStateSource,
    private readonly options: AccountStatesOptions,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * What is known of the account, and of its session `sessionId` when one
   * is being checked; `context` is made only when identity must be asked,
   * since a request context costs the hot path.
   */
  async get(userId: string, sessionId: string | undefined, context: () => RequestContext): Promise<AccountLookup> {
    const entry = this.entries.get(userId);
    if (entry && this.isFresh(entry.fetchedAt) && this.answers(entry.state, sessionId)) return entry.state ?? 'deleted';
    try {
      return (await this.fetch(userId, sessionId, context)) ?? 'deleted';
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'service:unavailable')) throw error;
      if (entry) return entry.state ?? 'deleted';
      this.options.onUnknown?.();
      return 'unknown';
    }
  }

  /**
   * Makes what is known of an account stale, after this gateway ended
   * sessions of it: the next use asks identity, and the answer stays the
   * fallback should identity be unavailable.
   */
  invalidate(userId: string): void {
    const entry = this.entries.get(userId);
    if (entry) this.entries.set(userId, { ...entry, fetchedAt: Number.NEGATIVE_INFINITY });
  }

  private isFresh(fetchedAt: number): boolean {
    return this.clock() - fetchedAt < this.options.maxAgeMs;
  }

  /** Whether a state tells whether `sessionId` ended: a complete list does, an incomplete one only for what it names or was asked lately. */
  private answers(state: AccountState | undefined, sessionId: string | undefined): boolean {
    const ended = state?.endedSessions;
    if (!ended || sessionId === undefined || ended.complete || ended.ids.has(sessionId)) return true;
    const checkedAt = this.checkedSessions.get(sessionId);
    return checkedAt !== undefined && this.isFresh(checkedAt);
  }

  private async fetch(userId: string, sessionId: string | undefined, context: () => RequestContext): Promise<AccountState | undefined> {
    const pending = this.inFlight.get(userId);
    if (pending) {
      const state = await pending;
      if (this.answers(state, sessionId)) return state;
    }
    return this.request(userId, sessionId, context);
  }

  private request(userId: string, sessionId: string | undefined, context: () => RequestContext): Promise<AccountState | undefined> {
    const fetchedAt = this.clock();
    const request: Promise<AccountState | undefined> = this.source(userId, sessionId, context())
      .then((state) => {
        remember(this.entries, userId, { state, fetchedAt }, this.options.maxEntries);
        const ended = state?.endedSessions;
        if (sessionId !== undefined && ended && !ended.complete && !ended.ids.has(sessionId)) {
          remember(this.checkedSessions, sessionId, fetchedAt, this.options.maxEntries);
        }
        return state;
      })
      .finally(() => {
        if (this.inFlight.get(userId) === request) this.inFlight.delete(userId);
      });
    this.inFlight.set(userId, request);
    return request;
  }
}

/** Keeps at most `maxEntries`; re-inserted, so that the Map's order is the order of fetching and the oldest go first. */
function remember<Value>(map: Map<string, Value>, key: string, value: Value, maxEntries: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > maxEntries) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
}
