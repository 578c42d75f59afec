import { randomBytes, randomUUID } from 'node:crypto';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { connect, type NatsConnection } from 'nats';
import { Redis } from 'ioredis';
import pg from 'pg';
import { postsV1 } from '@latchkey/contracts';
import { postListVersionKey } from '@latchkey/post-list-version';
import { AppError } from '@latchkey/errors';
import { searchIndex } from '@latchkey/jobs-contract';
import { topology } from '@latchkey/job-streams';
import type { Running } from '@latchkey/runtime';
import { createLogger } from '@latchkey/telemetry';
import {
  createTestDatabase,
  freePort,
  startHungRedis,
  startS3Server,
  testNatsUrl,
  testRedisUrl,
  uniqueName,
  waitFor,
  type S3Server,
  type TestDatabase,
  createTestServiceClient,
  type TestServiceClient,
} from '@latchkey/test-kit';
// The worker maintains the search index and deletes content; its migrations create schema `search`.
import { loadJobsConfig, migrateJobsSchema, startWorker, type Worker } from '../../../jobs/src';
import { loadPostsConfig, type PostsConfig } from '../../src/config';
import { migrate } from '../../src/migrate';
import { startPostsService } from '../../src/posts-service';

type PostsClient = TestServiceClient<typeof postsV1.PostsServiceService>;

const logger = createLogger({ service: 'posts-test', level: 'silent' });
const prefix = uniqueName('posts');
const MIB = 1_048_576;

let database: TestDatabase;
let s3: S3Server;
let storage: S3Client;
let db: pg.Pool;
let redis: Redis;
let nc: NatsConnection;
let worker: Worker;
let config: PostsConfig;
const services: Running[] = [];
const clients: PostsClient[] = [];
let client: PostsClient;

async function startService(overrides: Record<string, string> = {}): Promise<PostsClient> {
  const service = await startPostsService(loadPostsConfig({ ...baseEnvironment(), ...overrides }), logger);
  services.push(service);
  const started = createTestServiceClient(postsV1.PostsServiceService, `127.0.0.1:${String(service.readyFields?.grpc_port)}`);
  clients.push(started);
  return started;
}

function baseEnvironment(): Record<string, string> {
  return {
    DATABASE_URL: database.url,
    NATS_URL: testNatsUrl(),
    NATS_SUBJECT_PREFIX: prefix,
    REDIS_URL: testRedisUrl(),
    REDIS_KEY_PREFIX: `${prefix}:`,
    GRPC_PORT: '0',
    METRICS_PORT: '0',
    ...s3.variables,
  };
}

async function errorOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}

function newAuthor() {
  const id = randomUUID();
  return { id, handle: `user_${id.slice(0, 8)}` };
}

/** A word no other post has: letters only, so the search parser keeps it one token. */
function uniqueWord(): string {
  return `w${[...randomBytes(8)].map((byte) => String.fromCharCode(97 + (byte % 26))).join('')}`;
}

async function create(author: { id: string; handle: string }, title = 'A title', content = 'Some content') {
  const { post } = await client.createPost({ authorId: author.id, authorHandle: author.handle, title, content });
  return post!;
}

async function storedObject(key: string): Promise<string | undefined> {
  try {
    const object = await storage.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
    return await object.Body?.transformToString('utf-8');
  } catch (error) {
    if ((error as { name?: unknown }).name === 'NoSuchKey') return undefined;
    throw error;
  }
}

async function rowCount(sql: string, values: unknown[]): Promise<number> {
  return (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${sql}) AS rows`, values)).rows[0]!.n;
}

async function searchIds(query: string, limit?: number): Promise<string[]> {
  return (await client.searchPosts({ query, limit, cursor: '' })).items.map((item) => item.id);
}

async function foundBy(query: string, postId: string): Promise<void> {
  await waitFor(async () => ((await searchIds(query)).includes(postId) ? true : undefined), {
    description: `post ${postId} found by "${query}"`,
  });
}

beforeAll(async () => {
  [database, s3] = await Promise.all([createTestDatabase('posts'), startS3Server()]);
  config = loadPostsConfig(baseEnvironment());
  await migrate(config, logger);
  await migrateJobsSchema(database.url);
  client = await startService();
  redis = new Redis(testRedisUrl());
  worker = await startWorker(
    loadJobsConfig({
      ...baseEnvironment(),
      SMTP_URL: 'smtp://127.0.0.1:1',
      PUBLIC_APP_URL: 'http://app.example.test',
      JOBS_RETRY_BASE_MS: '50',
      // delete_content asks posts whether the post is gone.
      POSTS_GRPC_ADDRESS: `127.0.0.1:${String(services[0]!.readyFields?.grpc_port)}`,
    }),
    logger,
  );
  storage = new S3Client({
    region: s3.region,
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  db = new pg.Pool({ connectionString: database.url, options: '-c search_path=posts', max: 2 });
  nc = await connect({ servers: testNatsUrl() });
});

afterAll(async () => {
  for (const started of clients) started.close();
  for (const service of services) await service.stop();
  await worker?.stop();
  const jsm = await nc?.jetstreamManager();
  const names = topology(prefix);
  await jsm?.streams.delete(names.jobsStream).catch(() => undefined);
  await jsm?.streams.delete(names.deadLetterStream).catch(() => undefined);
  await nc?.close();
  storage?.destroy();
  await db?.end();
  await redis?.del(postListVersionKey(`${prefix}:`));
  redis?.disconnect();
  await s3?.close();
  await database?.drop();
});

describe('create and get', () => {
  it('stores the trimmed title, the content in S3 at posts/{id}, the action and the index job', async () => {
    const author = newAuthor();
    const word = uniqueWord();
    const post = await create(author, `  Hello ${word}  `, 'The body, exactly as given.\n');
    expect(post).toMatchObject({
      author: { id: author.id, handle: author.handle },
      title: `Hello ${word}`,
      content: 'The body, exactly as given.\n',
    });
    expect(post.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    expect(post.createdAt).toBeInstanceOf(Date);
    expect(post.updatedAt).toEqual(post.createdAt);

    expect(await storedObject(`posts/${post.id}`)).toBe('The body, exactly as given.\n');
    const { rows } = await db.query('SELECT storage_key, version FROM posts WHERE id = $1', [post.id]);
    expect(rows).toEqual([{ storage_key: `posts/${post.id}`, version: 1 }]);
    expect(await client.getPost({ postId: post.id })).toEqual({ post });

    // The relay published the index job and the worker indexed the post.
    await foundBy(word, post.id);
    await waitFor(async () => ((await rowCount('SELECT 1 FROM outbox', [])) === 0 ? true : undefined));
  });

  it('accepts content of exactly POSTS_MAX_CONTENT_BYTES and refuses one byte more', async () => {
    const author = newAuthor();
    const exact = 'é'.repeat(MIB / 2);
    const post = await create(author, 'Large', exact);
    expect((await client.getPost({ postId: post.id })).post!.content).toBe(exact);

    const error = await errorOf(create(author, 'Too large', `${exact}x`));
    expect(error.code).toBe('validation:invalid_input');
    expect(error.fields).toEqual([{ field: 'content', message: `must be 1-${MIB} bytes of UTF-8` }]);
    expect(await rowCount("SELECT 1 FROM posts WHERE title = 'Too large'", [])).toBe(0);
  });

  it('lists every invalid field at once', async () => {
    const error = await errorOf(client.createPost({ authorId: 'nope', authorHandle: 'ada', title: '   ', content: '' }));
    expect(error.code).toBe('validation:invalid_input');
    expect(error.fields.map((f) => f.field)).toEqual(['author_id', 'title', 'content']);
  });

  it('answers post:not_found for an unknown id and a validation error on `id` for a malformed one', async () => {
    expect((await errorOf(client.getPost({ postId: randomUUID() }))).code).toBe('post:not_found');
    const malformed = await errorOf(client.getPost({ postId: 'not-a-uuid' }));
    expect(malformed.code).toBe('validation:invalid_input');
    expect(malformed.fields).toEqual([{ field: 'id', message: 'must be a UUID' }]);
  });
});

describe('update', () => {
  it('lets the author change the title only, keeping the content and bumping the version', async () => {
    const author = newAuthor();
    const [oldWord, newWord] = [uniqueWord(), uniqueWord()];
    const post = await create(author, `Old ${oldWord}`, 'Unchanged body');
    await foundBy(oldWord, post.id);

    const { post: updated } = await client.updatePost({ actorId: author.id, postId: post.id, title: ` New ${newWord} ` });
    expect(updated).toMatchObject({ id: post.id, title: `New ${newWord}`, content: 'Unchanged body', createdAt: post.createdAt });
    expect(updated!.updatedAt!.getTime()).toBeGreaterThan(post.updatedAt!.getTime());
    expect((await db.query('SELECT version FROM posts WHERE id = $1', [post.id])).rows[0]).toEqual({ version: 2 });

    await foundBy(newWord, post.id);
    await waitFor(async () => ((await searchIds(oldWord)).length === 0 ? true : undefined), {
      description: 'the old title no longer found',
    });
  });

  it('overwrites the content in S3 and re-indexes it', async () => {
    const author = newAuthor();
    const [oldWord, newWord] = [uniqueWord(), uniqueWord()];
    const post = await create(author, 'Title', `old ${oldWord}`);
    const { post: updated } = await client.updatePost({ actorId: author.id, postId: post.id, content: `new ${newWord}` });
    expect(updated).toMatchObject({ title: 'Title', content: `new ${newWord}` });
    expect(await storedObject(`posts/${post.id}`)).toBe(`new ${newWord}`);
    await foundBy(newWord, post.id);
    expect(await searchIds(oldWord)).toEqual([]);
  });

  it('serves a post read lately from memory, and its edit at once', async () => {
    const author = newAuthor();
    const post = await create(author, 'Kept', 'first words');
    expect((await client.getPost({ postId: post.id })).post?.content).toBe('first words');
    // Changed behind the service's back, the object is not read again while the post's version stands.
    await storage.send(new PutObjectCommand({ Bucket: s3.bucket, Key: `posts/${post.id}`, Body: 'changed in the store' }));
    expect((await client.getPost({ postId: post.id })).post?.content).toBe('first words');
    // An edit raises the version: the next read fetches the new content.
    await client.updatePost({ actorId: author.id, postId: post.id, content: 'second words' });
    expect((await client.getPost({ postId: post.id })).post?.content).toBe('second words');
    await client.deletePost({ actorId: author.id, postId: post.id });
    expect((await errorOf(client.getPost({ postId: post.id }))).code).toBe('post:not_found');
  });

  it('refuses anyone but the author, an unknown post, and a request that changes nothing', async () => {
    const author = newAuthor();
    const post = await create(author);
    const stranger = newAuthor();
    expect((await errorOf(client.updatePost({ actorId: stranger.id, postId: post.id, title: 'Mine now' }))).code).toBe(
      'post:forbidden',
    );
    expect((await errorOf(client.updatePost({ actorId: author.id, postId: randomUUID(), title: 'x' }))).code).toBe(
      'post:not_found',
    );
    const nothing = await errorOf(client.updatePost({ actorId: author.id, postId: post.id }));
    expect(nothing.fields).toEqual([{ field: 'title', message: 'or content is required' }]);
    const empty = await errorOf(client.updatePost({ actorId: author.id, postId: post.id, title: '', content: '' }));
    expect(empty.fields.map((f) => f.field)).toEqual(['title', 'content']);
    expect((await client.getPost({ postId: post.id })).post).toEqual(post);
  });
});

describe('delete', () => {
  it('lets only the author delete; the post, its object and its index entry go', async () => {
    const author = newAuthor();
    const word = uniqueWord();
    const post = await create(author, `Delete ${word}`, 'Soon gone');
    await foundBy(word, post.id);

    expect((await errorOf(client.deletePost({ actorId: newAuthor().id, postId: post.id }))).code).toBe('post:forbidden');
    await expect(client.deletePost({ actorId: author.id, postId: post.id })).resolves.toEqual({});

    expect((await errorOf(client.getPost({ postId: post.id }))).code).toBe('post:not_found');
    expect((await errorOf(client.deletePost({ actorId: author.id, postId: post.id }))).code).toBe('post:not_found');
    // Searches join the posts table: the post is gone from results at once.
    expect(await searchIds(word)).toEqual([]);
    await waitFor(async () => ((await storedObject(`posts/${post.id}`)) === undefined ? true : undefined), {
      description: 'the delete_content job to remove the object',
    });
    const { rows } = await db.query('SELECT deleted FROM search.post_documents WHERE post_id = $1', [post.id]);
    expect(rows).toEqual([{ deleted: true }]);
  });
});

describe('list', () => {
  it('pages 25 posts by 10, newest first, without duplicates, filtered by author', async () => {
    const author = newAuthor();
    const created: string[] = [];
    for (let i = 0; i < 25; i += 1) created.push((await create(author, `Post ${i}`)).id);
    await create(newAuthor(), 'Someone else');

    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor = '';
    do {
      const page = await client.listPosts({ limit: 10, cursor, authorId: author.id });
      sizes.push(page.items.length);
      seen.push(...page.items.map((item) => item.id));
      for (const item of page.items) expect(item).toMatchObject({ author: { id: author.id, handle: author.handle } });
      cursor = page.nextCursor;
    } while (cursor !== '');

    expect(sizes).toEqual([10, 10, 5]);
    expect(seen).toEqual([...created].reverse());
  });

  it('lists every author newest first with the default page size', async () => {
    const existing = await rowCount('SELECT 1 FROM posts', []);
    for (let i = existing; i < 21; i += 1) await create(newAuthor(), `Filler ${i}`);
    const newest = await create(newAuthor(), 'Newest of all');
    const page = await client.listPosts({ cursor: '' });
    expect(page.items).toHaveLength(20);
    expect(page.items[0]).toEqual({
      id: newest.id,
      author: newest.author,
      title: newest.title,
      createdAt: newest.createdAt,
      updatedAt: newest.updatedAt,
    });
    expect(page.nextCursor).not.toBe('');
    const ids = page.items.map((item) => item.id);
    expect([...ids].sort().reverse()).toEqual(ids);
  });

  it('refuses a bad limit, cursor or author filter', async () => {
    const fieldOf = async (request: postsV1.ListPostsRequest) => (await errorOf(client.listPosts(request))).fields[0]?.field;
    expect(await fieldOf({ limit: 0, cursor: '' })).toBe('limit');
    expect(await fieldOf({ limit: 101, cursor: '' })).toBe('limit');
    expect(await fieldOf({ cursor: 'garbage!' })).toBe('cursor');
    expect(await fieldOf({ cursor: Buffer.from('{"id":"1"}').toString('base64url') })).toBe('cursor');
    expect(await fieldOf({ cursor: '', authorId: 'someone' })).toBe('author_id');
  });
});

describe('search', () => {
  it('pages matches best first with a stable cursor', async () => {
    const author = newAuthor();
    const word = uniqueWord();
    // ts_rank_cd weighs a title occurrence (A) 1.0 and a content one (B) 0.4:
    // four content hits 1.6, three 1.2, the title 1.0, two 0.8, one 0.4.
    const posts = [
      await create(author, 'One', `${word}`),
      await create(author, 'Two', `${word} and ${word}`),
      await create(author, 'Three', `${word}, ${word}, ${word}`),
      await create(author, 'Four', `${word} ${word} ${word} ${word}`),
      await create(author, `Title ${word}`, 'body'),
    ];
    for (const post of posts) await foundBy(word, post.id);

    const seen: string[] = [];
    let cursor = '';
    do {
      const page = await client.searchPosts({ query: word, limit: 2, cursor });
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((item) => item.id));
      cursor = page.nextCursor;
    } while (cursor !== '');
    expect(seen).toEqual([posts[3]!.id, posts[2]!.id, posts[4]!.id, posts[1]!.id, posts[0]!.id]);

    const badCursor = await errorOf(client.searchPosts({ query: word, cursor: Buffer.from('{}').toString('base64url') }));
    expect(badCursor.fields).toEqual([{ field: 'cursor', message: 'is not a valid cursor' }]);
    expect((await errorOf(client.searchPosts({ query: '  ', cursor: '' }))).fields[0]?.field).toBe('q');
  });

  it('ranks the newest SEARCH_RANK_CANDIDATES matches and the SEARCH_RANK_CHAMPIONS strongest older ones', async () => {
    const capped = await startService({ SEARCH_RANK_CANDIDATES: '2', SEARCH_RANK_CHAMPIONS: '1' });
    const newestOnly = await startService({ SEARCH_RANK_CANDIDATES: '2', SEARCH_RANK_CHAMPIONS: '0' });
    const author = newAuthor();
    const word = uniqueWord();
    // The oldest post is about the word and ranks highest; the next one mentions it once among others and is
    // neither among the two newest nor the word's strongest post.
    const strongest = await create(author, `Title ${word}`, `${word} ${word} ${word}`);
    const passing = await create(author, 'Passing', `a ${word} among several other longer terms entirely`);
    const middle = await create(author, 'Middle', `${word} ${word}`);
    const newest = await create(author, 'Newest', word);
    for (const post of [strongest, passing, middle, newest]) await foundBy(word, post.id);
    const { items } = await capped.searchPosts({ query: word, cursor: '' });
    expect(items.map((item) => item.id)).toEqual([strongest.id, middle.id, newest.id]);
    const unchampioned = await newestOnly.searchPosts({ query: word, cursor: '' });
    expect(unchampioned.items.map((item) => item.id)).toEqual([middle.id, newest.id]);
  });

  it('finds a champion only where the whole query matches it', async () => {
    const capped = await startService({ SEARCH_RANK_CANDIDATES: '1', SEARCH_RANK_CHAMPIONS: '8' });
    const author = newAuthor();
    const [word, excluded] = [uniqueWord(), uniqueWord()];
    const strongWithExcluded = await create(author, `${word} ${excluded}`, `${word} ${word} ${excluded}`);
    const strong = await create(author, `${word}`, `${word} ${word} ${word}`);
    const newest = await create(author, 'Newest', `${word} and nothing more to say`);
    for (const post of [strongWithExcluded, strong, newest]) await foundBy(word, post.id);
    const { items } = await capped.searchPosts({ query: `${word} -${excluded}`, cursor: '' });
    expect(items.map((item) => item.id)).toEqual([strong.id, newest.id]);
  });

  it('refuses a query of more than 16 words', async () => {
    const words = Array.from({ length: 17 }, (_, i) => `word${String.fromCharCode(97 + i)}`);
    const error = await errorOf(client.searchPosts({ query: words.join(' or '), cursor: '' }));
    expect(error.fields).toEqual([{ field: 'q', message: 'must have at most 16 words' }]);
    expect(await searchIds(words.slice(0, 16).join(' or '))).toEqual([]);
  });

  it('gives up on a search after SEARCH_STATEMENT_TIMEOUT_MS, on connections that reads and writes do not share', async () => {
    const impatient = await startService({ SEARCH_STATEMENT_TIMEOUT_MS: '300', SEARCH_POOL_MAX: '1' });
    const post = await create(newAuthor());
    const locker = await db.connect();
    try {
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE ${searchIndex.postDocuments} IN ACCESS EXCLUSIVE MODE`);
      const started = Date.now();
      const searches = await Promise.all([1, 2].map(() => errorOf(impatient.searchPosts({ query: 'anything', cursor: '' }))));
      expect(searches.map((error) => error.code)).toEqual(['service:unavailable', 'service:unavailable']);
      expect(Date.now() - started).toBeLessThan(3_000);
      // The stuck searches held only their own pool: reads and writes went on.
      expect((await impatient.getPost({ postId: post.id })).post?.id).toBe(post.id);
      expect((await impatient.listPosts({ limit: 1, cursor: '' })).items).toHaveLength(1);
    } finally {
      await locker.query('ROLLBACK');
      locker.release();
    }
    expect(await impatient.searchPosts({ query: 'anything', cursor: '' })).toMatchObject({ nextCursor: '' });
  });

  it('takes web-search syntax without failing on odd input', async () => {
    expect(await searchIds('"unbalanced quote -- or OR & | ! :* \\')).toEqual([]);
    expect(await searchIds('the')).toEqual([]);
  });
});

describe('action logs', () => {
  it('records create, edit and delete, newest first, paged', async () => {
    const author = newAuthor();
    const first = await create(author);
    const second = await create(author);
    await client.updatePost({ actorId: author.id, postId: first.id, title: 'Edited' });
    await client.deletePost({ actorId: author.id, postId: second.id });
    await create(newAuthor());

    const page1 = await client.listActionLogs({ userId: author.id, limit: 3, cursor: '' });
    const page2 = await client.listActionLogs({ userId: author.id, limit: 3, cursor: page1.nextCursor });
    expect(page2.nextCursor).toBe('');
    const entries = [...page1.items, ...page2.items];
    expect(entries.map((e) => [e.action, e.resourceId])).toEqual([
      ['post:delete', second.id],
      ['post:edit', first.id],
      ['post:create', second.id],
      ['post:create', first.id],
    ]);
    for (const entry of entries) {
      expect(entry.resourceType).toBe('post');
      expect(entry.createdAt).toBeInstanceOf(Date);
    }
    expect((await errorOf(client.listActionLogs({ userId: author.id, cursor: 'x!' }))).fields[0]?.field).toBe('cursor');
  });
});

describe('account deletion cascade', () => {
  it('deletes every post of the user with its content, plus the action log, and is idempotent', async () => {
    const author = newAuthor();
    const other = await create(newAuthor(), 'Survivor');
    const posts = [await create(author), await create(author), await create(author)];

    expect(await client.deleteUserPosts({ userId: author.id })).toEqual({ deletedPosts: 3 });
    expect((await client.listPosts({ cursor: '', authorId: author.id })).items).toEqual([]);
    expect((await client.listActionLogs({ userId: author.id, cursor: '' })).items).toEqual([]);
    // Only a tombstone is left: no handle, the time the deletion started.
    expect((await db.query('SELECT handle, deleted_at FROM authors WHERE id = $1', [author.id])).rows).toEqual([
      { handle: '', deleted_at: expect.any(Date) },
    ]);
    for (const post of posts) {
      await waitFor(async () => ((await storedObject(`posts/${post.id}`)) === undefined ? true : undefined));
    }
    expect((await client.getPost({ postId: other.id })).post!.title).toBe('Survivor');
    expect(await client.deleteUserPosts({ userId: author.id })).toEqual({ deletedPosts: 0 });
  });
});

describe('posts racing an account deletion', () => {
  it('refuses a post for an author whose deletion has started, and deletes one that committed before it', async () => {
    const author = newAuthor();
    await create(author, 'Before');
    // Creates in flight while the cascade runs: each either commits before
    // the author is marked (and is deleted by the cascade) or is refused.
    const racing = Array.from({ length: 8 }, (_, i) =>
      client.createPost({ authorId: author.id, authorHandle: author.handle, title: `Racing ${i}`, content: 'x' }).then(
        () => 'created',
        (error: unknown) => (error instanceof AppError ? error.code : String(error)),
      ),
    );
    await client.deleteUserPosts({ userId: author.id });
    const outcomes = await Promise.all(racing);
    expect(outcomes.every((outcome) => outcome === 'created' || outcome === 'auth:unauthorized')).toBe(true);
    expect(await rowCount('SELECT 1 FROM posts WHERE author_id = $1', [author.id])).toBe(0);

    const late = await errorOf(client.createPost({ authorId: author.id, authorHandle: author.handle, title: 'After', content: 'x' }));
    expect(late.code).toBe('auth:unauthorized');
    expect(await rowCount('SELECT 1 FROM posts WHERE author_id = $1', [author.id])).toBe(0);
  });
});

describe('list version', () => {
  const version = () => redis.get(postListVersionKey(`${prefix}:`));

  it('publishes a new version before answering each write, and none for a read or a delete of nothing', async () => {
    const author = newAuthor();
    const seen = new Set([await version()]);
    const expectNewVersion = async () => {
      const current = await version();
      expect(current).toMatch(/^[\w-]{16}$/);
      expect(seen).not.toContain(current);
      seen.add(current);
    };

    const post = await create(author);
    await expectNewVersion();
    await client.updatePost({ actorId: author.id, postId: post.id, title: 'Retitled' });
    await expectNewVersion();
    await client.deletePost({ actorId: author.id, postId: post.id });
    await expectNewVersion();
    await create(author);
    await expectNewVersion();
    await client.deleteUserPosts({ userId: author.id });
    await expectNewVersion();

    const last = await version();
    await client.listPosts({ cursor: '' });
    await client.deleteUserPosts({ userId: author.id });
    expect(await version()).toBe(last);
  });

  it.each(['silent', 'after-handshake'] as const)('takes writes while Redis hangs (%s)', async (mode) => {
    // A write must not wait on Redis past its caller's deadline, nor fail for it.
    const hung = await startHungRedis(mode);
    try {
      const withoutRedis = await startService({ REDIS_URL: hung.url });
      const author = newAuthor();
      const { post } = await withoutRedis.createPost({ authorId: author.id, authorHandle: author.handle, title: 'Kept', content: 'x' });
      await withoutRedis.updatePost({ actorId: author.id, postId: post!.id, title: 'Kept still' });
      await withoutRedis.deletePost({ actorId: author.id, postId: post!.id });
      expect(await rowCount('SELECT 1 FROM posts WHERE author_id = $1', [author.id])).toBe(0);
    } finally {
      await hung.close();
    }
  });
});

describe('object store outage', () => {
  it('answers service:unavailable and writes no metadata when S3 cannot be reached', async () => {
    const closedPort = await freePort();
    const broken = await startService({ S3_ENDPOINT: `http://127.0.0.1:${closedPort}` });
    const author = newAuthor();
    const error = await errorOf(
      broken.createPost({ authorId: author.id, authorHandle: author.handle, title: 'Never stored', content: 'x' }),
    );
    expect(error.code).toBe('service:unavailable');
    expect(await rowCount('SELECT 1 FROM posts WHERE author_id = $1', [author.id])).toBe(0);
    expect(await rowCount('SELECT 1 FROM action_logs WHERE actor_id = $1', [author.id])).toBe(0);

    // An edit of content or a read needs the store too, and changes nothing when it is down.
    const post = await create(author, 'Stored', 'original');
    expect((await errorOf(broken.updatePost({ actorId: author.id, postId: post.id, content: 'changed' }))).code).toBe(
      'service:unavailable',
    );
    expect((await errorOf(broken.updatePost({ actorId: author.id, postId: post.id, title: 'changed' }))).code).toBe(
      'service:unavailable',
    );
    expect((await errorOf(broken.getPost({ postId: post.id }))).code).toBe('service:unavailable');
    expect((await client.getPost({ postId: post.id })).post).toEqual(post);
    expect(await rowCount("SELECT 1 FROM action_logs WHERE actor_id = $1 AND action = 'post:edit'", [author.id])).toBe(0);
    // Lists do not need the store.
    expect((await broken.listPosts({ cursor: '', authorId: author.id })).items.map((i) => i.id)).toEqual([post.id]);
  });
});
