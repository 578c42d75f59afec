import { randomBytes, randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from 'nats';
import { Redis } from 'ioredis';
import { postsV1 } from '@latchkey/contracts';
import { AppError } from '@latchkey/errors';
import { topology } from '@latchkey/job-streams';
import { postListVersionKey } from '@latchkey/post-list-version';
import type { Running } from '@latchkey/runtime';
import { createLogger } from '@latchkey/telemetry';
import {
  createTestDatabase,
  createTestServiceClient,
  startFakeOpenSearch,
  startS3Server,
  testNatsUrl,
  testRedisUrl,
  uniqueName,
  waitFor,
  type FakeOpenSearch,
  type S3Server,
  type TestDatabase,
  type TestServiceClient,
} from '@latchkey/test-kit';
import { loadJobsConfig, migrateJobsSchema, startWorker, type Worker } from '../../../jobs/src';
import { loadPostsConfig } from '../../src/config';
import { migrate } from '../../src/migrate';
import { startPostsService } from '../../src/posts-service';

/**
 * SEARCH_ENGINE=opensearch end to end: posts writes, the jobs worker
 * indexes into the cluster (a stand-in speaking OpenSearch's HTTP API,
 * packages/test-kit/src/fake-opensearch.ts), and SearchPosts ranks there.
 */

type PostsClient = TestServiceClient<typeof postsV1.PostsServiceService>;

const logger = createLogger({ service: 'posts-opensearch-test', level: 'silent' });
const prefix = uniqueName('posts_os');
const index = `${prefix}-posts`;

let database: TestDatabase;
let s3: S3Server;
let cluster: FakeOpenSearch;
let redis: Redis;
let nc: NatsConnection;
let worker: Worker;
let service: Running;
let client: PostsClient;

function environment(): Record<string, string> {
  return {
    DATABASE_URL: database.url,
    NATS_URL: testNatsUrl(),
    NATS_SUBJECT_PREFIX: prefix,
    REDIS_URL: testRedisUrl(),
    REDIS_KEY_PREFIX: `${prefix}:`,
    GRPC_PORT: '0',
    METRICS_PORT: '0',
    SEARCH_ENGINE: 'opensearch',
    OPENSEARCH_URL: cluster.url,
    OPENSEARCH_INDEX: index,
    // Stays below the posts tests' ranking bound: old matches must be found all the same.
    SEARCH_RANK_CANDIDATES: '2',
    ...s3.variables,
  };
}

function uniqueWord(): string {
  return `w${[...randomBytes(8)].map((byte) => String.fromCharCode(97 + (byte % 26))).join('')}`;
}

const author = { id: randomUUID(), handle: 'searcher' };

async function create(title: string, content: string) {
  const { post } = await client.createPost({ authorId: author.id, authorHandle: author.handle, title, content });
  return post!;
}

async function searchIds(query: string, limit?: number): Promise<string[]> {
  return (await client.searchPosts({ query, limit, cursor: '' })).items.map((item) => item.id);
}

/** Waits until the worker has indexed `version` of every post. */
async function indexed(posts: readonly { id: string }[], version = 1): Promise<void> {
  await waitFor(
    async () => {
      const documents = cluster.documents(index);
      return posts.every((post) => documents?.get(post.id)?.source.version === version) ? true : undefined;
    },
    { description: `${posts.length} posts indexed at version ${version}` },
  );
}

async function errorOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}

beforeAll(async () => {
  [database, s3, cluster] = await Promise.all([createTestDatabase('posts_os'), startS3Server(), startFakeOpenSearch()]);
  await migrate(loadPostsConfig(environment()), logger);
  await migrateJobsSchema(database.url);
  service = await startPostsService(loadPostsConfig(environment()), logger);
  client = createTestServiceClient(postsV1.PostsServiceService, `127.0.0.1:${String(service.readyFields?.grpc_port)}`);
  worker = await startWorker(
    loadJobsConfig({
      ...environment(),
      SMTP_URL: 'smtp://127.0.0.1:1',
      PUBLIC_APP_URL: 'http://app.example.test',
      JOBS_RETRY_BASE_MS: '50',
      POSTS_GRPC_ADDRESS: `127.0.0.1:${String(service.readyFields?.grpc_port)}`,
    }),
    logger,
  );
  redis = new Redis(testRedisUrl());
  nc = await connect({ servers: testNatsUrl() });
});

afterAll(async () => {
  client?.close();
  await service?.stop();
  await worker?.stop();
  const jsm = await nc?.jetstreamManager();
  const names = topology(prefix);
  await jsm?.streams.delete(names.jobsStream).catch(() => undefined);
  await jsm?.streams.delete(names.deadLetterStream).catch(() => undefined);
  await nc?.close();
  await redis?.del(postListVersionKey(`${prefix}:`));
  redis?.disconnect();
  await cluster?.close();
  await s3?.close();
  await database?.drop();
});

describe('search in OpenSearch', () => {
  it('created the index with its mapping when the worker started', () => {
    expect(cluster.requests).toContain(`PUT /${index}`);
    expect(cluster.documents(index)).toBeDefined();
  });

  it('ranks every match, so an old best match leads the first page however many newer ones there are', async () => {
    const word = uniqueWord();
    const other = uniqueWord();
    const best = await create(`${word} ${other}`, Array.from({ length: 20 }, () => `${word} ${other}`).join(' '));
    const newer = [];
    for (let i = 0; i < 5; i += 1) newer.push(await create(`Newer ${i}`, `Mentions ${word} and ${other} once.`));
    await indexed([best, ...newer]);
    const ids = await searchIds(`${word} ${other}`);
    expect(ids[0]).toBe(best.id);
    expect(ids).toHaveLength(6);
  });

  it('pages best match first with a cursor that continues exactly where the page ended', async () => {
    const word = uniqueWord();
    const posts = [];
    for (let count = 1; count <= 5; count += 1) posts.push(await create(`Post ${count}`, Array.from({ length: count }, () => word).join(' ')));
    await indexed(posts);
    const seen: string[] = [];
    let cursor = '';
    do {
      const page = await client.searchPosts({ query: word, limit: 2, cursor });
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((item) => item.id));
      cursor = page.nextCursor;
    } while (cursor !== '');
    expect(seen).toEqual([...posts].reverse().map((post) => post.id));
  });

  it('reads web-search syntax: all words, or, phrases, exclusions, and stop words alone find nothing', async () => {
    const [a, b, c] = [uniqueWord(), uniqueWord(), uniqueWord()];
    const ab = await create(`${a} ${b}`, 'first');
    const ba = await create('second', `${b} then ${a}`);
    const ac = await create(`${a}`, `${c}`);
    await indexed([ab, ba, ac]);
    expect(new Set(await searchIds(`${a} ${b}`))).toEqual(new Set([ab.id, ba.id]));
    expect(new Set(await searchIds(`${b} or ${c}`))).toEqual(new Set([ab.id, ba.id, ac.id]));
    expect(await searchIds(`"${a} ${b}"`)).toEqual([ab.id]);
    expect(new Set(await searchIds(`${a} -${c}`))).toEqual(new Set([ab.id, ba.id]));
    expect(await searchIds(`the ${c}`)).toEqual([ac.id]);
    expect(await searchIds('the')).toEqual([]);
  });

  it('finds an edit under its new words only, and a deleted post no more, the tombstone outliving late index jobs', async () => {
    const [before, after] = [uniqueWord(), uniqueWord()];
    const post = await create('Edited later', before);
    await indexed([post]);
    await client.updatePost({ actorId: author.id, postId: post.id, content: after });
    await indexed([post], 2);
    expect(await searchIds(before)).toEqual([]);
    expect(await searchIds(after)).toEqual([post.id]);

    await client.deletePost({ actorId: author.id, postId: post.id });
    // Gone from the answers at once: the page's rows come from posts.
    expect(await searchIds(after)).toEqual([]);
    await waitFor(async () => (cluster.documents(index)?.get(post.id)?.source.deleted === true ? true : undefined), {
      description: 'the tombstone',
    });
  });

  it('answers 503 while the cluster fails, and the worker catches up once it is back', async () => {
    const word = uniqueWord();
    cluster.fail(503);
    let post;
    try {
      expect((await errorOf(client.searchPosts({ query: 'anything', cursor: '' }))).code).toBe('service:unavailable');
      post = await create('Written during the outage', word);
      // The index job fails and is retried: nothing is written meanwhile.
      await waitFor(async () => (cluster.requests.filter((r) => r === `GET /${index}/_doc/${post!.id}`).length >= 2 ? true : undefined), {
        description: 'the index job retried',
      });
    } finally {
      cluster.recover();
    }
    await indexed([post]);
    expect(await searchIds(word)).toEqual([post.id]);
  });
});
