import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { postsV1 } from '@latchkey/contracts';
import type { Running } from '@latchkey/runtime';
import { createLogger } from '@latchkey/telemetry';
import {
  createTestDatabase,
  startOwnNatsServer,
  startS3Server,
  testRedisUrl,
  uniqueName,
  waitFor,
  type OwnNatsServer,
  type S3Server,
  type TestDatabase,
  createTestServiceClient,
  type TestServiceClient,
} from '@latchkey/test-kit';
import { loadJobsConfig, migrateJobsSchema, startWorker, type Worker } from '../../../jobs/src';
import { loadPostsConfig } from '../../src/config';
import { migrate } from '../../src/migrate';
import { startPostsService } from '../../src/posts-service';

// The broker goes away in this file, so it runs one of its own.
const logger = createLogger({ service: 'posts-test', level: 'silent' });
let broker: OwnNatsServer;
let database: TestDatabase;
let s3: S3Server;
let service: Running;
let worker: Worker;
let client: TestServiceClient<typeof postsV1.PostsServiceService>;
let db: pg.Pool;

function uniqueWord(): string {
  return `w${[...randomBytes(8)].map((byte) => String.fromCharCode(97 + (byte % 26))).join('')}`;
}

async function createPost(word: string): Promise<string> {
  const { post } = await client.createPost({
    authorId: randomUUID(),
    authorHandle: 'ada',
    title: `Outage ${word}`,
    content: `Written while the broker may be away: ${word}.`,
  });
  return post!.id;
}

async function isFound(word: string, postId: string): Promise<boolean> {
  const { items } = await client.searchPosts({ query: word, cursor: '' });
  return items.some((item) => item.id === postId);
}

async function queuedInOutbox(): Promise<number> {
  return (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox')).rows[0]!.n;
}

beforeAll(async () => {
  [broker, database, s3] = await Promise.all([startOwnNatsServer(), createTestDatabase('posts_outage'), startS3Server()]);
  const environment = {
    DATABASE_URL: database.url,
    NATS_URL: broker.url,
    NATS_SUBJECT_PREFIX: uniqueName('posts_outage'),
    REDIS_URL: testRedisUrl(),
    REDIS_KEY_PREFIX: `${uniqueName('posts_outage')}:`,
    METRICS_PORT: '0',
    ...s3.variables,
  };
  await migrate(loadPostsConfig(environment), logger);
  await migrateJobsSchema(database.url);
  service = await startPostsService(loadPostsConfig({ ...environment, GRPC_PORT: '0' }), logger);
  worker = await startWorker(
    loadJobsConfig({
      ...environment,
      SMTP_URL: 'smtp://127.0.0.1:1',
      PUBLIC_APP_URL: 'http://app.example.test',
      POSTS_GRPC_ADDRESS: `127.0.0.1:${String(service.readyFields?.grpc_port)}`,
    }),
    logger,
  );
  client = createTestServiceClient(postsV1.PostsServiceService, `127.0.0.1:${String(service.readyFields?.grpc_port)}`);
  db = new pg.Pool({ connectionString: database.url, options: '-c search_path=posts', max: 2 });
});

afterAll(async () => {
  client?.close();
  await service?.stop();
  await worker?.stop();
  await broker?.destroy();
  await db?.end();
  await s3?.close();
  await database?.drop();
});

it('creates posts while NATS is down and indexes every one of them once it is back', async () => {
  const first = uniqueWord();
  const firstId = await createPost(first);
  await waitFor(async () => ((await isFound(first, firstId)) ? true : undefined), { description: 'the first post indexed' });
  await waitFor(async () => ((await queuedInOutbox()) === 0 ? true : undefined), { description: 'the outbox relayed' });

  await broker.stop();
  const words = [uniqueWord(), uniqueWord(), uniqueWord(), uniqueWord(), uniqueWord()];
  const ids: string[] = [];
  for (const word of words) ids.push(await createPost(word));
  // The jobs wait in the outbox, committed with their posts: an index job and a post.created event each.
  expect(await queuedInOutbox()).toBe(2 * words.length);
  for (const id of ids) expect((await client.getPost({ postId: id })).post!.id).toBe(id);

  await broker.start();
  for (const [index, word] of words.entries()) {
    await waitFor(async () => ((await isFound(word, ids[index]!)) ? true : undefined), {
      timeoutMs: 30_000,
      description: `post ${index} indexed after the outage`,
    });
  }
  await waitFor(async () => ((await queuedInOutbox()) === 0 ? true : undefined), { description: 'the outbox emptied' });
}, 60_000);
