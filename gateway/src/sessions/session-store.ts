import { randomBytes } from 'node:crypto';
import { execTransaction, getEach, type RedisClient } from '@latchkey/db';
import { AppError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import { generateOpaqueToken, hashOpaqueToken } from '@latchkey/opaque-token';
import { endSessions, sessionKey, userSessionsKey } from '@latchkey/session-keys';
import type { AccountLookup, AccountStates } from './account-states';
import type { CachedProfile } from './cached-profile';

/** One server-side session. The cookie value itself is never stored. */
export interface Session {
  /** SHA-256 of the cookie value, base64url: the Redis key suffix. */
  readonly tokenHash: string;
  /** Shown to the user and used to end one session; never the cookie value. */
  readonly publicId: string;
  readonly userId: string;
  /**
   * The user's handle, which never changes, kept for what the gateway hands
   * on (the author of a new post) instead of asking identity per request.
   * Undefined in sessions stored before it was kept.
   */
  readonly handle: string | undefined;
  readonly createdAt: number;
  readonly lastSeenAt: number;
  /** When the user last proved who they are in this session: its sign-in, or a re-authentication. */
  readonly authenticatedAt: number;
  /**
   * Every way the user proved who they are in this session, as
   * authentication method references (RFC 8176): `pwd`, `fed` (an identity
   * provider), `otp` and `mfa` after a second factor, `webauthn` for a
   * passkey (not in RFC 8176's registry, and the value passkey-aware
   * identity providers use). Empty in sessions stored before they were kept.
   */
  readonly methods: readonly AuthenticationMethod[];
  /**
   * How the proof of `authenticatedAt` was made: whether the last sign-in or
   * re-authentication was as strong as a sign-in of the account must be
   * (docs/api.md, "Re-authentication").
   */
  readonly proofMethods: readonly AuthenticationMethod[];
  /**
   * A provider re-authentication of an account with TOTP proves the first
   * factor only: it waits here for a code (docs/api.md, "Re-authentication").
   */
  readonly pendingFirstFactor?: { readonly method: 'fed'; readonly at: number } | undefined;
  /** The account's credential epoch at sign-in; a later password change or reset ends the session. */
  readonly sessionEpoch: number;
  /** Sliding expiry, extended on activity below the refresh threshold. */
  readonly expiresAt: number;
  /** Absolute expiry, never extended. */
  readonly maxExpiresAt: number;
  readonly userAgent: string;
  readonly ip: string;
  /** The account as last shown, kept so that GET /v0/users/me costs one Redis read. */
  readonly profile?: CachedProfile | undefined;
  /**
   * The organisation this session acts for (PUT /v0/auth/session/org), by
   * id; what the member may do there is asked of identity when a token or
   * an introspection needs it, never kept here.
   */
  readonly activeOrganizationId?: string | undefined;
}

export type AuthenticationMethod = 'pwd' | 'fed' | 'otp' | 'mfa' | 'webauthn';

/**
 * Why the gateway ends sessions one by one, as `session.revoked` says
 * (proto/events/v1/events.proto); `announced_by_identity` when identity
 * announced the change that ends them itself (a credential change, the
 * account's deletion).
 */
export type SessionEndReason =
  | 'logout'
  | 'session_revoked'
  | 'totp_enabled'
  | 'provider_linked'
  | 'email_changed'
  | 'session_limit'
  | 'platform'
  | 'announced_by_identity';

/**
 * Publishes `session.revoked` for sessions about to end and records durably
 * that they ended, until `expiresAt`, when the last of them would have
 * expired anyway (identity.v1 RecordSessionsEnded). Asked before they are
 * deleted, so that a failure leaves them alive rather than ended
 * unannounced, or ended in Redis only.
 */
export type SessionEndAnnouncer = (
  ending: {
    userId: string;
    reason: Exclude<SessionEndReason, 'announced_by_identity'>;
    sessionIds: string[];
    keptSessionId: string;
    expiresAt: Date;
  },
  context: RequestContext,
) => Promise<void>;

/** A session about to end: its absolute expiry when its record was read, else only its index entry. */
type EndingSession = Pick<Session, 'tokenHash' | 'publicId'> & { readonly maxExpiresAt?: number };

/**
 * Whether a session's proof was multi-factor: a second factor, or a passkey,
 * which is only accepted with user verification (docs/api.md, "Passkeys").
 */
export function isMultiFactor(methods: readonly AuthenticationMethod[]): boolean {
  return methods.includes('mfa') || methods.includes('webauthn');
}

/** The methods of a sign-in whose first factor was `first`, with or without a second factor. */
export function signInMethods(first: 'pwd' | 'fed', secondFactor: boolean): AuthenticationMethod[] {
  return secondFactor ? [first, 'otp', 'mfa'] : [first];
}

export interface SessionPolicy {
  readonly slidingTtlMs: number;
  readonly maxLifetimeMs: number;
  /** Percent of the sliding TTL; a session with less remaining is extended. */
  readonly refreshThresholdPercent: number;
  /** Live sessions one user may hold; a new one past it ends the least recently used. */
  readonly maxPerUser: number;
}

/** last_seen_at is informational; writing it on every request would double Redis traffic. */
const LAST_SEEN_RESOLUTION_MS = 5 * 60 * 1000;
const COOKIE_VALUE_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const MAX_USER_AGENT_LENGTH = 256;

interface StoredSession {
  u: string;
  h?: string;
  p: string;
  c: number;
  s: number;
  t?: number;
  r?: AuthenticationMethod[];
  q?: AuthenticationMethod[];
  f?: { m: 'fed'; t: number };
  k?: number;
  e: number;
  m: number;
  a: string;
  i: string;
  v?: CachedProfile['view'];
  vt?: number;
  o?: string;
}

/** The Redis key part of a session: the cookie value's hash, never the value. */
export const hashSessionToken = hashOpaqueToken;

/** When a session should be extended, and to when (docs/api.md, "Session cookie"). */
export function slidingRefresh(
  session: Pick<Session, 'expiresAt' | 'maxExpiresAt'>,
  policy: Pick<SessionPolicy, 'slidingTtlMs' | 'refreshThresholdPercent'>,
  now: number,
) {
  const remaining = session.expiresAt - now;
  const due = remaining < (policy.slidingTtlMs * policy.refreshThresholdPercent) / 100;
  return { due, expiresAt: due ? Math.min(now + policy.slidingTtlMs, session.maxExpiresAt) : session.expiresAt };
}

/**
 * Sessions in Redis, keyed by a hash of the cookie value so that a leaked
 * store yields no usable cookie. A per-user hash maps public ids to token
 * hashes, which is what lets a password change end every other session.
 */
export class SessionStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly policy: SessionPolicy,
    /** The accounts' credential epochs and disabled flags, which every use of a session is held to. */
    private readonly accounts: AccountStates,
    private readonly announce: SessionEndAnnouncer,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Creates a session; answers the cookie value, which exists only in the response. */
  async create(input: {
    userId: string;
    handle: string | undefined;
    sessionEpoch: number;
    methods: readonly AuthenticationMethod[];
    userAgent: string;
    ip: string;
    profile?: CachedProfile['view'];
  }, context: RequestContext): Promise<{ cookieValue: string; session: Session }> {
    const cookieValue = generateOpaqueToken();
    const now = this.clock();
    const session: Session = {
      tokenHash: hashSessionToken(cookieValue),
      publicId: randomBytes(16).toString('base64url'),
      userId: input.userId,
      handle: input.handle,
      createdAt: now,
      lastSeenAt: now,
      authenticatedAt: now,
      methods: input.methods,
      proofMethods: input.methods,
      sessionEpoch: input.sessionEpoch,
      expiresAt: Math.min(now + this.policy.slidingTtlMs, now + this.policy.maxLifetimeMs),
      maxExpiresAt: now + this.policy.maxLifetimeMs,
      userAgent: input.userAgent.slice(0, MAX_USER_AGENT_LENGTH),
      ip: input.ip,
      profile: input.profile && { view: input.profile, storedAt: now },
    };
    const index = this.indexKey(session.userId);
    // The index entry first: the record and the index live in different
    // slots of a Redis Cluster, and a session must never exist that ending
    // all of a user's sessions cannot find. An entry whose record was never
    // written is pruned by list().
    const replies = await execTransaction(
      this.redis
        .multi()
        .hset(index, session.publicId, session.tokenHash)
        // The index lives as long as the longest session it can hold.
        .pexpireat(index, session.maxExpiresAt)
        .hlen(index),
    );
    // A refused write (Redis full under noeviction) must fail the sign-in, not hand out a cookie for nothing.
    await this.redis.set(this.sessionKey(session.tokenHash), encode(session), 'PXAT', Math.min(session.expiresAt, session.maxExpiresAt));
    const held = Number(replies[2] ?? 0);
    if (held > this.policy.maxPerUser) await this.trim(session.userId, session.publicId, context);
    return { cookieValue, session };
  }

  /**
   * Keeps a user within `maxPerUser` sessions, so that signing in again and
   * again (a script, a stolen password) cannot grow Redis without bound:
   * drops index entries of expired sessions, then ends the least recently
   * used live ones, never `keepPublicId`.
   */
  private async trim(userId: string, keepPublicId: string, context: RequestContext): Promise<void> {
    const live = (await this.list(userId, () => context)).filter((session) => session.publicId !== keepPublicId);
    const excess = live.length + 1 - this.policy.maxPerUser;
    if (excess <= 0) return;
    const doomed = live.sort((a, b) => a.lastSeenAt - b.lastSeenAt || a.createdAt - b.createdAt).slice(0, excess);
    await this.end(userId, doomed, { reason: 'session_limit', keptSessionId: keepPublicId }, context);
  }

  /**
   * Resolves a cookie to a live session and extends it when due: the one
   * Redis read on the path of every authenticated request, plus a write only
   * when the sliding TTL is refreshed or last_seen_at is stale. `context` is
   * asked for only when identity must be (see `inspect`).
   */
  async authenticate(cookieValue: string | undefined, context: () => RequestContext): Promise<Session | undefined> {
    const session = cookieValue === undefined ? undefined : await this.inspect(cookieValue, context);
    if (!session) return undefined;
    const now = this.clock();
    const refresh = slidingRefresh(session, this.policy, now);
    if (!refresh.due && now - session.lastSeenAt < LAST_SEEN_RESOLUTION_MS) return session;
    const updated: Session = { ...session, expiresAt: refresh.expiresAt, lastSeenAt: now };
    // XX: a session deleted meanwhile (logout elsewhere) must not come back.
    await this.redis.set(this.sessionKey(session.tokenHash), encode(updated), 'PXAT', Math.min(updated.expiresAt, updated.maxExpiresAt), 'XX');
    return updated;
  }

  /**
   * The live session of a token, read only: what `authenticate` extends,
   * and what another service asking (sessions.v1 IntrospectSession) gets,
   * so that asking is not activity. A session is live while it has not
   * expired, its account exists and is not disabled, and no credential
   * change raised the account's epoch since it started, and it was not
   * ended on its own (identity's record of ended sessions): one that Redis
   * still holds regardless (a revocation not yet done, a failover to a
   * lagging replica, a restored snapshot) is refused and ended here.
   */
  async inspect(cookieValue: string, context: () => RequestContext): Promise<Session | undefined> {
    if (!COOKIE_VALUE_PATTERN.test(cookieValue)) return undefined;
    const tokenHash = hashSessionToken(cookieValue);
    const raw = await this.redis.get(this.sessionKey(tokenHash));
    const session = raw ? decode(tokenHash, raw) : undefined;
    const now = this.clock();
    if (!session || now >= session.expiresAt || now >= session.maxExpiresAt) return undefined;
    return (await this.isCurrent(session, context)) ? session : undefined;
  }

  /**
   * Whether the account still stands behind the session. A revoked one is
   * ended on the way, unannounced: identity announced the change that
   * revoked it, or the deletion of the account.
   */
  private async isCurrent(session: Session, context: () => RequestContext): Promise<boolean> {
    if (standsBehind(await this.accounts.get(session.userId, session.publicId, context), session)) return true;
    await endSessions(this.redis, this.prefix, session.userId, [session]).catch(() => undefined);
    return false;
  }

  /**
   * Records a fresh proof of identity in this session (POST
   * /v0/auth/reauthenticate) made with `proof`; answers when.
   */
  async markAuthenticated(session: Session, proof: readonly AuthenticationMethod[]): Promise<number> {
    const now = this.clock();
    const methods = [...session.methods, ...proof.filter((method) => !session.methods.includes(method))];
    const updated: Session = { ...session, authenticatedAt: now, lastSeenAt: now, methods, proofMethods: proof, pendingFirstFactor: undefined };
    const stored = await this.redis.set(this.sessionKey(session.tokenHash), encode(updated), 'KEEPTTL', 'XX');
    if (stored === null) throw new AppError('auth:unauthorized');
    return now;
  }

  /**
   * Adds a second factor proved now to the session's last proof, which keeps
   * its time: turning TOTP on proves the authenticator on top of the recent
   * proof the change needed, as strong as a sign-in from then on.
   */
  async markSecondFactor(session: Session): Promise<void> {
    const secondFactor: AuthenticationMethod[] = ['otp', 'mfa'];
    const updated: Session = {
      ...session,
      methods: [...session.methods, ...secondFactor.filter((method) => !session.methods.includes(method))],
      proofMethods: [...session.proofMethods, ...secondFactor.filter((method) => !session.proofMethods.includes(method))],
    };
    const stored = await this.redis.set(this.sessionKey(session.tokenHash), encode(updated), 'KEEPTTL', 'XX');
    if (stored === null) throw new AppError('auth:unauthorized');
  }

  /** Keeps a first factor proved now, for a second factor to complete the re-authentication. */
  async markFirstFactor(session: Session, method: 'fed'): Promise<void> {
    const updated: Session = { ...session, pendingFirstFactor: { method, at: this.clock() } };
    const stored = await this.redis.set(this.sessionKey(session.tokenHash), encode(updated), 'KEEPTTL', 'XX');
    if (stored === null) throw new AppError('auth:unauthorized');
  }

  /**
   * Makes the session act for an organisation, or for none; the account view
   * kept in it, which shows the active organisation, goes.
   */
  async setActiveOrganization(session: Session, organizationId: string | undefined): Promise<void> {
    const updated: Session = { ...session, activeOrganizationId: organizationId, profile: undefined };
    const stored = await this.redis.set(this.sessionKey(session.tokenHash), encode(updated), 'KEEPTTL', 'XX');
    if (stored === null) throw new AppError('auth:unauthorized');
  }

  /** Keeps the account's view in this session; a session ended meanwhile stays ended. */
  async saveProfile(session: Session, view: CachedProfile['view']): Promise<void> {
    const updated: Session = { ...session, profile: { view, storedAt: this.clock() } };
    await this.redis.set(this.sessionKey(session.tokenHash), encode(updated), 'KEEPTTL', 'XX');
  }

  /**
   * Drops the kept view from every session of a user, after a change to the
   * account, so that the next GET /v0/users/me asks the services again.
   */
  async forgetProfiles(userId: string): Promise<void> {
    const index = await this.redis.hgetall(this.indexKey(userId));
    const tokenHashes = Object.values(index);
    if (tokenHashes.length === 0) return;
    const values = await getEach(
      this.redis,
      tokenHashes.map((tokenHash) => this.sessionKey(tokenHash)),
    );
    // One SET per session, each in its own slot; XX keeps a session ended meanwhile ended.
    await Promise.all(
      tokenHashes.map((tokenHash, position) => {
        const raw = values[position];
        const session = raw ? decode(tokenHash, raw) : undefined;
        return session?.profile
          ? this.redis.set(this.sessionKey(tokenHash), encode({ ...session, profile: undefined }), 'KEEPTTL', 'XX')
          : Promise.resolve(null);
      }),
    );
  }

  /** Live sessions of a user, pruning index entries whose session expired. */
  async list(userId: string, context: () => RequestContext): Promise<Session[]> {
    const index = await this.redis.hgetall(this.indexKey(userId));
    const entries = Object.entries(index);
    if (entries.length === 0) return [];
    const values = await getEach(
      this.redis,
      entries.map(([, tokenHash]) => this.sessionKey(tokenHash)),
    );
    const sessions: Session[] = [];
    const dead: string[] = [];
    const now = this.clock();
    entries.forEach(([publicId, tokenHash], position) => {
      const raw = values[position];
      const session = raw ? decode(tokenHash, raw) : undefined;
      if (session && now < session.expiresAt && now < session.maxExpiresAt) sessions.push(session);
      else dead.push(publicId);
    });
    if (dead.length > 0) await this.redis.hdel(this.indexKey(userId), ...dead);
    // Held to what identity lists of the account: for the rare account with more ended sessions than it lists, a
    // brought-back one may show here until it is used, when authenticate() asks about it by its id and refuses it.
    const account = sessions.length > 0 ? await this.accounts.get(userId, undefined, context) : 'deleted';
    const current = sessions.filter((session) => standsBehind(account, session));
    const revoked = sessions.filter((session) => !current.includes(session));
    if (revoked.length > 0) await endSessions(this.redis, this.prefix, userId, revoked);
    return current.sort((a, b) => b.createdAt - a.createdAt);
  }

  /** Ends one session (a logout, or one of the user's own ended from the list). */
  async delete(session: Session, reason: 'logout' | 'session_revoked', context: RequestContext): Promise<void> {
    await this.end(session.userId, [session], { reason, keptSessionId: '' }, context);
  }

  /** Ends one session of `userId` by its public id; false when the user has no such session. */
  async deleteByPublicId(userId: string, publicId: string, reason: 'session_revoked' | 'platform', context: RequestContext): Promise<boolean> {
    const tokenHash = await this.redis.hget(this.indexKey(userId), publicId);
    if (!tokenHash) return false;
    await this.end(userId, [{ tokenHash, publicId }], { reason, keptSessionId: '' }, context);
    return true;
  }

  /** Ends every session of a user, or every one but `keepPublicId`; answers how many there were. */
  async deleteAllForUser(
    userId: string,
    ending: { readonly reason: SessionEndReason; readonly keepPublicId?: string | undefined },
    context: RequestContext,
  ): Promise<number> {
    const index = await this.redis.hgetall(this.indexKey(userId));
    const doomed = Object.entries(index)
      .filter(([publicId]) => publicId !== ending.keepPublicId)
      .map(([publicId, tokenHash]) => ({ publicId, tokenHash }));
    await this.end(userId, doomed, { reason: ending.reason, keptSessionId: ending.keepPublicId ?? '' }, context);
    return doomed.length;
  }

  /**
   * Announces the sessions' end and has it recorded durably, unless
   * identity announced the change that ends them (which raised the
   * account's epoch), then ends them.
   */
  private async end(
    userId: string,
    sessions: readonly EndingSession[],
    ending: { readonly reason: SessionEndReason; readonly keptSessionId: string },
    context: RequestContext,
  ): Promise<void> {
    if (sessions.length === 0) return;
    if (ending.reason !== 'announced_by_identity') {
      // A session known by its index entry alone expires at the latest a whole lifetime from now.
      const latestExpiry = this.clock() + this.policy.maxLifetimeMs;
      const expiresAt = new Date(sessions.reduce((latest, session) => Math.max(latest, session.maxExpiresAt ?? latestExpiry), 0));
      await this.announce(
        { userId, reason: ending.reason, sessionIds: sessions.map((session) => session.publicId), keptSessionId: ending.keptSessionId, expiresAt },
        context,
      );
    }
    // What this gateway remembers of the account predates the ending: the next use of any of its sessions asks again.
    this.accounts.invalidate(userId);
    await endSessions(this.redis, this.prefix, userId, sessions);
  }

  private sessionKey(tokenHash: string): string {
    return sessionKey(this.prefix, tokenHash);
  }

  private indexKey(userId: string): string {
    return userSessionsKey(this.prefix, userId);
  }
}

/** Whether what is known of the account admits the session: see AccountStates for `unknown`. */
function standsBehind(account: AccountLookup, session: Pick<Session, 'sessionEpoch' | 'publicId'>): boolean {
  if (account === 'unknown') return true;
  return (
    account !== 'deleted' &&
    !account.disabled &&
    session.sessionEpoch >= account.sessionEpoch &&
    account.endedSessions?.ids.has(session.publicId) !== true
  );
}

function encode(session: Session): string {
  const stored: StoredSession = {
    u: session.userId,
    ...(session.handle === undefined ? {} : { h: session.handle }),
    p: session.publicId,
    c: session.createdAt,
    s: session.lastSeenAt,
    t: session.authenticatedAt,
    r: [...session.methods],
    q: [...session.proofMethods],
    ...(session.pendingFirstFactor ? { f: { m: session.pendingFirstFactor.method, t: session.pendingFirstFactor.at } } : {}),
    k: session.sessionEpoch,
    e: session.expiresAt,
    m: session.maxExpiresAt,
    a: session.userAgent,
    i: session.ip,
  };
  if (session.profile) {
    stored.v = session.profile.view;
    stored.vt = session.profile.storedAt;
  }
  if (session.activeOrganizationId !== undefined) stored.o = session.activeOrganizationId;
  return JSON.stringify(stored);
}

function decode(tokenHash: string, raw: string): Session | undefined {
  try {
    const s = JSON.parse(raw) as StoredSession;
    return {
      tokenHash,
      publicId: s.p,
      userId: s.u,
      handle: s.h,
      createdAt: s.c,
      lastSeenAt: s.s,
      // Sessions stored before it was kept were authenticated when they were made.
      authenticatedAt: s.t ?? s.c,
      methods: s.r ?? [],
      // Sessions stored before it was kept were last proved by their sign-in.
      proofMethods: s.q ?? s.r ?? [],
      pendingFirstFactor: s.f ? { method: s.f.m, at: s.f.t } : undefined,
      sessionEpoch: s.k ?? 0,
      expiresAt: s.e,
      maxExpiresAt: s.m,
      userAgent: s.a,
      ip: s.i,
      profile: s.v && s.vt !== undefined ? { view: s.v, storedAt: s.vt } : undefined,
      activeOrganizationId: s.o,
    };
  } catch {
    return undefined;
  }
}
