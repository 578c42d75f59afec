import type pg from 'pg';
import { AppError } from '@latchkey/errors';
import { defineRedisScript, type RedisClient, type RedisScript } from '@latchkey/db';
import type { Logger } from '@latchkey/telemetry';

/**
 * Keeps the highest position recorded: two writers finishing out of order
 * must not move it back. Positions are fixed-width hex, so that strings
 * compare as numbers.
 */
const RAISE_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if not current or current < ARGV[1] then redis.call('SET', KEYS[1], ARGV[1]) end
return 0`;

/** How long a replica that failed a read is left alone. */
const REPLICA_PAUSE_MS = 5_000;

/** A PostgreSQL LSN (`16/B374D848`) as 16 hex digits, which compare as strings in order. */
export function lsnKey(lsn: string): string {
  const [high, low] = lsn.split('/');
  return `${(high ?? '0').padStart(8, '0')}${(low ?? '0').padStart(8, '0')}`.toUpperCase();
}

/**
 * Where post reads, lists and searches run when DATABASE_READ_URL names a
 * streaming replica (docs/operations.md, "Production topology"). Every
 * write, once committed and before it is answered, records the primary's
 * WAL position in Redis. A read opens a read-only transaction on the
 * replica, asks in the same round trip how far it has replayed, and goes
 * on there only when that covers the last recorded write; otherwise it
 * runs on the primary. So nobody, the author first, reads a post or a list
 * older than a write already answered, and the check holds whichever
 * server of several replicas (or a pooler in front of them) answers: the
 * check and the read are one transaction on one server.
 *
 * Redis away makes reads go to the primary, never to a replica that may
 * lag. A replica that fails is left alone for a few seconds, and the read
 * runs on the primary.
 */
export class ReadRouting {
  private readonly raise: RedisScript | undefined;
  private replicaPausedUntil = 0;

  constructor(
    private readonly primary: pg.Pool,
    private readonly replica: pg.Pool | undefined,
    private readonly redis: RedisClient,
    private readonly redisKeyPrefix: string,
    private readonly logger: Logger,
  ) {
    this.raise = replica === undefined ? undefined : defineRedisScript(redis, RAISE_SCRIPT);
  }

  private get key(): string {
    return `${this.redisKeyPrefix}posts:write-position`;
  }

  /** Call after a write committed and before answering it. A no-op without a replica. */
  async written(): Promise<void> {
    if (this.raise === undefined) return;
    try {
      const { rows } = await this.primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
      await this.raise([this.key], [lsnKey(rows[0]!.lsn)]);
    } catch (error) {
      // Readers then go by the writes before this one; the primary answers whoever Redis cannot.
      this.logger.warn({ err: error }, 'could not record the write position; replica reads may lag this write');
    }
  }

  /**
   * Runs `onReplica` on `replica` (default the reads' replica pool) when it
   * has replayed every write answered so far, with statements bounded by
   * `timeoutMs`; else `onPrimary`.
   */
  async read<T>(
    onReplica: (db: pg.PoolClient) => Promise<T>,
    onPrimary: () => Promise<T>,
    options: { timeoutMs: number; replica?: pg.Pool | undefined } = { timeoutMs: 10_000 },
  ): Promise<T> {
    const replica = options.replica ?? this.replica;
    if (replica === undefined || Date.now() < this.replicaPausedUntil) return onPrimary();
    let needed: string | null;
    try {
      needed = await this.redis.get(this.key);
    } catch {
      return onPrimary();
    }
    let client: pg.PoolClient | undefined;
    try {
      client = await replica.connect();
    } catch (error) {
      return this.primaryInstead(error, onPrimary);
    }
    try {
      const timeout = Math.max(1, Math.ceil(options.timeoutMs));
      // One round trip; NULL on a server not in recovery (a promoted replica has every write).
      const results = (await client.query(
        `BEGIN READ ONLY; SET LOCAL statement_timeout = ${String(timeout)}; SELECT pg_last_wal_replay_lsn()::text AS lsn`,
      )) as unknown as pg.QueryResult<{ lsn: string | null }>[];
      const lsn = results[results.length - 1]?.rows[0]?.lsn ?? null;
      if (needed !== null && lsn !== null && lsnKey(lsn) < needed) {
        await client.query('COMMIT');
        client.release();
        client = undefined;
        return await onPrimary();
      }
      const result = await onReplica(client);
      await client.query('COMMIT');
      client.release();
      client = undefined;
      return result;
    } catch (error) {
      if (client === undefined) throw error;
      await client.query('ROLLBACK').catch(() => undefined);
      client.release(true);
      if (error instanceof AppError) throw error;
      return this.primaryInstead(error, onPrimary);
    }
  }

  private primaryInstead<T>(error: unknown, onPrimary: () => Promise<T>): Promise<T> {
    this.replicaPausedUntil = Date.now() + REPLICA_PAUSE_MS;
    this.logger.warn({ err: error }, 'the read replica failed; reading from the primary');
    return onPrimary();
  }
}
