import { Redis } from 'ioredis';
import { sessionKey, userSessionsKey } from '@latchkey/session-keys';
import { testRedisUrl } from '@latchkey/test-kit';
import type { E2eStack } from './e2e-stack';

/** One session as the gateway stores it in Redis: its key and its JSON record. */
export interface SessionRecord {
  readonly key: string;
  readonly raw: string;
}

/** A user's session keys as Redis serialises them (DUMP), with their remaining TTLs: a snapshot of them. */
export interface SessionSnapshot {
  readonly keys: readonly { readonly key: string; readonly dump: Buffer; readonly ttlMs: number }[];
}

/**
 * What Redis holds of a user's sessions, read and written the way a Redis
 * that loses or brings back writes would (a failover, a restored snapshot):
 * behind the gateway's back.
 */
export async function withSessionStore<T>(stack: E2eStack, use: (store: SessionStoreAccess) => Promise<T>): Promise<T> {
  const redis = new Redis(testRedisUrl());
  const prefix = stack.env.REDIS_KEY_PREFIX ?? '';
  try {
    return await use({
      async records(userId) {
        const hashes = Object.values(await redis.hgetall(userSessionsKey(prefix, userId)));
        const values = hashes.length === 0 ? [] : await redis.mget(hashes.map((hash) => sessionKey(prefix, hash)));
        return hashes.flatMap((hash, position) => {
          const raw = values[position];
          return raw ? [{ key: sessionKey(prefix, hash), raw }] : [];
        });
      },
      async restore(records) {
        for (const record of records) await redis.set(record.key, record.raw, 'PX', 3_600_000);
      },
      async snapshot(userId) {
        const index = userSessionsKey(prefix, userId);
        const keys = [index, ...Object.values(await redis.hgetall(index)).map((hash) => sessionKey(prefix, hash))];
        const dumped = await Promise.all(keys.map(async (key) => ({ key, dump: await redis.dumpBuffer(key), ttlMs: await redis.pttl(key) })));
        return { keys: dumped.flatMap(({ key, dump, ttlMs }) => (dump ? [{ key, dump, ttlMs: Math.max(ttlMs, 0) }] : [])) };
      },
      async rollBack(snapshot) {
        for (const { key, dump, ttlMs } of snapshot.keys) await redis.restore(key, ttlMs, dump, 'REPLACE');
      },
    });
  } finally {
    redis.disconnect();
  }
}

export interface SessionStoreAccess {
  /** The live records of a user's sessions. */
  records(userId: string): Promise<SessionRecord[]>;
  /** Writes records back as they were (for an hour), as a restored snapshot would. */
  restore(records: readonly SessionRecord[]): Promise<void>;
  /** DUMPs a user's session index and every session it names. */
  snapshot(userId: string): Promise<SessionSnapshot>;
  /** RESTOREs a snapshot over whatever Redis holds now, as a failover to a lagging replica or a restored snapshot would. */
  rollBack(snapshot: SessionSnapshot): Promise<void>;
}
