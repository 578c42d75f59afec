import { randomUUID } from 'node:crypto';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { connect, type NatsConnection } from 'nats';
import { jobSubjects, type DeleteContentJob } from '@latchkey/jobs-contract';
import { topology } from '@latchkey/job-streams';
import type { Running } from '@latchkey/runtime';
import { createLogger } from '@latchkey/telemetry';
import {
  createTestDatabase,
  freePort,
  startS3Server,
  testNatsUrl,
  testRedisUrl,
  uniqueName,
  waitFor,
  type S3Server,
  type TestDatabase,
} from '@latchkey/test-kit';
import { loadJobsConfig, migrateJobsSchema, startWorker, type Worker } from '../../src';
import { loadPostsConfig } from '../../../posts/src/config';
import { migrate as migratePosts } from '../../../posts/src/migrate';
import { startPostsService } from '../../../posts/src/posts-service';

/**
 * A cleanup whose dependency is down for longer than JOBS_MAX_DELIVERIES
 * deliveries last is not parked: it retries (for JOBS_CLEANUP_RETRY_HOURS)
 * and completes once the dependency is back.
 */
const prefix = uniqueName('jobs_cleanup');
const names = topology(prefix);
const silent = createLogger({ service: 'test', level: 'silent' });

let database: TestDatabase;
let s3: S3Server;
let nc: NatsConnection;
let worker: Worker;
let posts: Running | undefined;
let postsPort: number;

async function processed(outcome: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${worker.metricsPort}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('jobs_processed_total{') && l.includes('job_type="content_delete"') && l.includes(`outcome="${outcome}"`));
  return line ? Number(line.split(' ').pop()) : 0;
}

beforeAll(async () => {
  [database, s3] = await Promise.all([createTestDatabase('jobs_cleanup'), startS3Server()]);
  await migrateJobsSchema(database.url);
  postsPort = await freePort();
  worker = await startWorker(
    loadJobsConfig({
      DATABASE_URL: database.url,
      NATS_URL: testNatsUrl(),
      NATS_SUBJECT_PREFIX: prefix,
      REDIS_URL: testRedisUrl(),
      REDIS_KEY_PREFIX: `${prefix}:`,
      SMTP_URL: 'smtp://127.0.0.1:1',
      PUBLIC_APP_URL: 'http://app.example.test',
      METRICS_PORT: '0',
      JOBS_RETRY_BASE_MS: '20',
      JOBS_MAX_DELIVERIES: '2',
      // Posts, which delete_content asks first, is not running yet.
      POSTS_GRPC_ADDRESS: `127.0.0.1:${postsPort}`,
      GRPC_DEADLINE_MS: '500',
      ...s3.variables,
    }),
    silent,
  );
  nc = await connect({ servers: testNatsUrl() });
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await posts?.stop();
  const jsm = await nc?.jetstreamManager();
  await jsm?.streams.delete(names.jobsStream).catch(() => undefined);
  await jsm?.streams.delete(names.deadLetterStream).catch(() => undefined);
  await nc?.drain();
  await s3?.close();
  await database?.drop();
});

describe('cleanup jobs', () => {
  it('keep retrying past JOBS_MAX_DELIVERIES while a dependency is down, and complete once it is back', async () => {
    const storage = new S3Client({
      region: s3.region,
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
    const postId = randomUUID();
    const key = `posts/${postId}`;
    await storage.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: 'content of a deleted post' }));
    const job: DeleteContentJob = { post_id: postId, storage_key: key, version: 2 };
    await nc.jetstream().publish(names.subject(jobSubjects.deleteContent), JSON.stringify(job), { msgID: randomUUID() });

    await waitFor(async () => ((await processed('retried')) >= 4 ? true : undefined), { description: 'four failed deliveries' });
    expect(await processed('dead_lettered')).toBe(0);

    const postsConfig = loadPostsConfig({
      DATABASE_URL: database.url,
      NATS_URL: testNatsUrl(),
      NATS_SUBJECT_PREFIX: `${prefix}_posts`,
      REDIS_URL: testRedisUrl(),
      REDIS_KEY_PREFIX: `${prefix}:`,
      GRPC_PORT: String(postsPort),
      METRICS_PORT: '0',
      ...s3.variables,
    });
    await migratePosts(postsConfig, silent);
    posts = await startPostsService(postsConfig, silent);

    await waitFor(async () => ((await processed('completed')) === 1 ? true : undefined), { description: 'the deletion completed' });
    const gone = await storage.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key })).then(
      () => false,
      (error: unknown) => (error as { name?: string }).name === 'NoSuchKey',
    );
    expect(gone).toBe(true);
    expect(await processed('dead_lettered')).toBe(0);
    storage.destroy();
  });
});
