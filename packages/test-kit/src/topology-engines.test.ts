import pg from 'pg';
import { Cluster, Redis } from 'ioredis';
import { connect } from 'nats';
import { startNatsCluster } from './nats-cluster';
import { startPgBouncer } from './pgbouncer';
import { startPostgresCluster } from './postgres-cluster';
import { startRedisCluster } from './redis-cluster';
import { startSentinelGroup } from './redis-sentinel';

jest.setTimeout(180_000);

describe('the production-topology engines the tests start', () => {
  it('a Redis Cluster of 3 masters and 3 replicas refuses a transaction over two slots', async () => {
    const cluster = await startRedisCluster();
    const redis = new Cluster(cluster.seeds.split(',').map((a) => ({ host: '127.0.0.1', port: Number(a.split(':')[1]) })), { redisOptions: { password: cluster.password } });
    try {
      await redis.set('{a}x', '1');
      await expect(redis.multi().set('a', '1').set('b', '2').exec()).rejects.toThrow(/CROSSSLOT|slot/i);
      expect(cluster.nodes).toHaveLength(6);
    } finally {
      redis.disconnect();
      await cluster.stop();
    }
  });

  it('a Sentinel group promotes the replica when the master dies', async () => {
    const group = await startSentinelGroup();
    try {
      const before = await group.masterPort();
      const moved = await group.failOver();
      expect(moved.oldPort).toBe(before);
      expect(moved.newPort).not.toBe(before);
      const redis = new Redis({ port: moved.newPort, password: group.password });
      expect(await redis.set('k', 'v')).toBe('OK');
      redis.disconnect();
    } finally {
      await group.stop();
    }
  });

  it('a 3-node NATS cluster takes a stream with 3 replicas', async () => {
    const cluster = await startNatsCluster();
    const nc = await connect({ servers: cluster.urls.split(',') });
    try {
      const jsm = await nc.jetstreamManager();
      await jsm.streams.add({ name: 'R3', subjects: ['r3.>'], num_replicas: 3 });
      expect((await jsm.streams.info('R3')).cluster?.replicas).toHaveLength(2);
    } finally {
      await nc.close();
      await cluster.stop();
    }
  });

  it('PostgreSQL with a streaming replica behind PgBouncer in transaction mode', async () => {
    const cluster = await startPostgresCluster();
    const bouncer = await startPgBouncer({ postgresPort: cluster.primary.port });
    try {
      const direct = new pg.Client({ connectionString: cluster.primary.url() });
      await direct.connect();
      await direct.query('CREATE TABLE t (x int)');
      await direct.end();
      const pooled = new pg.Pool({ connectionString: bouncer.url('postgres') });
      await pooled.query('INSERT INTO t VALUES (1)');
      await expect(new pg.Pool({ connectionString: bouncer.url('postgres'), options: '-c search_path=x' }).query('SELECT 1')).rejects.toThrow(/unsupported startup parameter/);
      await cluster.waitForReplica();
      const replica = new pg.Client({ connectionString: cluster.replica.url() });
      await replica.connect();
      expect((await replica.query('SELECT count(*)::int AS n FROM t')).rows[0]).toEqual({ n: 1 });
      await replica.end();
      await cluster.primary.restart();
      await expect(pooled.query('SELECT 1 AS one').catch(() => pooled.query('SELECT 1 AS one'))).resolves.toBeDefined();
      await pooled.end();
    } finally {
      await bouncer.stop();
      await cluster.stop();
    }
  });
});
