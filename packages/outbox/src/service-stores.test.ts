import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import { createLogger } from '@latchkey/telemetry';
import { createTestDatabase, freePort, testNatsUrl, testRedisUrl, uniqueName, waitFor, type TestDatabase } from '@latchkey/test-kit';
import { migrateServiceSchema } from './migrate-service-schema';
import { openServiceStores, type ServiceStores, type ServiceStoreSettings } from './service-stores';

const schema = 'ledgers';
const logger = createLogger({
  service: 'service-stores-test',
  level: 'warn',
  destination: new Writable({ write: (_chunk, _encoding, done) => done() }),
});
let database: TestDatabase;
let observer: pg.Client;

function settings(overrides: Partial<ServiceStoreSettings> = {}): ServiceStoreSettings {
  return {
    DATABASE_URL: database.url,
    DATABASE_POOL_MAX: 2,
    REDIS_MODE: 'standalone',
    REDIS_URL: testRedisUrl(),
    NATS_URL: testNatsUrl(),
    NATS_SUBJECT_PREFIX: uniqueName('stores').replace(/[^a-z0-9]/gi, '_').toLowerCase(),
    ...overrides,
  };
}

/** The client reports its end on the socket's close event, a moment after QUIT returns. */
async function redisEnded(stores: ServiceStores): Promise<void> {
  await waitFor(() => (stores.redis.status === 'end' ? true : undefined), { timeoutMs: 2_000, description: 'Redis connection to end' });
}

async function sessionsNamed(name: string): Promise<number> {
  const { rows } = await observer.query<{ count: string }>(
    'SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
    [name],
  );
  return Number(rows[0]?.count);
}

beforeAll(async () => {
  database = await createTestDatabase('service_stores');
  await migrateServiceSchema({ databaseUrl: database.url, schema, directory: mkdtempSync(path.join(tmpdir(), 'stores-')), logger });
  observer = new pg.Client({ connectionString: database.url });
  await observer.connect();
});

afterAll(async () => {
  await observer.end();
  await database.drop();
});

describe('openServiceStores', () => {
  it("names the unit's connections, answers readiness from the database, and leaves nothing open after close()", async () => {
    const stores = openServiceStores(settings(), { unit: 'ledgers', schema, logger });
    await expect(stores.databaseAnswers()).resolves.toBe(true);
    await expect(sessionsNamed('latchkey-ledgers')).resolves.toBeGreaterThan(0);
    await expect(stores.redis.call('CLIENT', 'GETNAME')).resolves.toBe('latchkey-ledgers');

    await stores.close();

    await redisEnded(stores);
    expect(stores.pool.ending).toBe(true);
    await expect(sessionsNamed('latchkey-ledgers')).resolves.toBe(0);
  });

  it('closes at once, and stops retrying, when Redis never answered', async () => {
    const nobody = `redis://127.0.0.1:${await freePort()}`;
    const stores = openServiceStores(settings({ REDIS_URL: nobody }), { unit: 'ledgers', schema, logger });
    const started = Date.now();

    await stores.close();

    expect(Date.now() - started).toBeLessThan(3_000);
    const attempts: string[] = [];
    stores.redis.on('reconnecting', () => attempts.push('reconnecting'));
    stores.redis.on('connect', () => attempts.push('connect'));
    // Unclosed, the client would retry every few hundred milliseconds (createRedisClient's retryStrategy).
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(attempts).toEqual([]);
  });
});
