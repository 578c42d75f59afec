import { randomBytes, randomUUID } from 'node:crypto';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { connect, type JetStreamClient, type NatsConnection } from 'nats';
import pg from 'pg';
import { jobSubjects, type DeleteContentJob, type IndexPostJob } from '@latchkey/jobs-contract';
import { topology } from '@latchkey/job-streams';
import { createLogger } from '@latchkey/telemetry';
import {
  createTestDatabase,
  startS3Server,
  testNatsUrl,
  uniqueName,
  waitFor,
  type S3Server,
  type TestDatabase,
  testRedisUrl,
} from '@latchkey/test-kit';
import type { Running } from '@latchkey/runtime';
import { loadJobsConfig, migrateJobsSchema, purgeTombstones, startWorker, type Worker } from '../../src';
import { loadPostsConfig } from '../../../posts/src/config';
import { migrate as migratePosts } from '../../../posts/src/migrate';
import { startPostsService } from '../../../posts/src/posts-service';

const prefix = uniqueName('jobs_posts');
const names = topology(prefix);

let database: TestDatabase;
let s3: S3Server;
let storage: S3Client;
let pool: pg.Pool;
let nc: NatsConnection;
let js: JetStreamClient;
let worker: Worker;
let postsService: Running | undefined;

/** A word no other test (or earlier run) has indexed: letters only, so the parser keeps it one token. */
function uniqueWord(): string {
  return `w${[...randomBytes(8)].map((byte) => String.fromCharCode(97 + (byte % 26))).join('')}`;
}

async function putContent(key: string, content: string): Promise<void> {
  await storage.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: Buffer.from(content) }));
}

async function objectExists(key: string): Promise<boolean> {
  try {
    await storage.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
    return true;
  } catch (error) {
    if ((error as { name?: unknown }).name === 'NoSuchKey') return false;
    throw error;
  }
}

/** As the outbox relay publishes: the outbox row id is the Nats-Msg-Id. */
async function publish(subject: string, payload: IndexPostJob | DeleteContentJob): Promise<void> {
  await js.publish(names.subject(subject), JSON.stringify(payload), { msgID: randomUUID() });
}

/** Post ids whose live document matches `query`, as the posts service's search reads the index. */
async function searchIds(query: string): Promise<string[]> {
  const { rows } = await pool.query<{ post_id: string }>(
    `SELECT post_id FROM search.post_documents
      WHERE document @@ websearch_to_tsquery('english', $1) AND NOT deleted`,
    [query],
  );
  return rows.map((row) => row.post_id);
}

async function documentOf(postId: string) {
  const { rows } = await pool.query<{ version: string; deleted: boolean; title: string }>(
    'SELECT version, deleted, title FROM search.post_documents WHERE post_id = $1',
    [postId],
  );
  return rows[0];
}

async function processed(job: string, outcome: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${worker.metricsPort}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('jobs_processed_total{') && l.includes(`job_type="${job}"`) && l.includes(`outcome="${outcome}"`));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** Waits until the counter of `job` / `outcome` grew past `before`. */
async function outcomeAfter(job: string, outcome: string, before: number): Promise<void> {
  await waitFor(async () => ((await processed(job, outcome)) > before ? true : undefined), {
    description: `a ${job} job ending ${outcome}`,
  });
}

function newPost(title: string): { postId: string; key: string; job: IndexPostJob } {
  const postId = randomUUID();
  const key = `posts/${postId}`;
  return { postId, key, job: { post_id: postId, version: 1, title, storage_key: key, author_id: randomUUID() } };
}

async function indexed(post: { job: IndexPostJob }, content: string, word: string): Promise<void> {
  await putContent(post.job.storage_key, content);
  await publish(jobSubjects.indexPost, post.job);
  await waitFor(async () => ((await searchIds(word)).includes(post.job.post_id) ? true : undefined), {
    description: `post ${post.job.post_id} found by ${word}`,
  });
}

beforeAll(async () => {
  [database, s3] = await Promise.all([createTestDatabase('jobs_posts'), startS3Server()]);
  await migrateJobsSchema(database.url);
  storage = new S3Client({
    region: s3.region,
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  // delete_content asks posts whether the post is gone: the posts of these jobs never existed there.
  const postsConfig = loadPostsConfig({
    DATABASE_URL: database.url,
    NATS_URL: testNatsUrl(),
    NATS_SUBJECT_PREFIX: `${prefix}_posts`,
    REDIS_URL: testRedisUrl(),
    REDIS_KEY_PREFIX: `${prefix}:`,
    GRPC_PORT: '0',
    METRICS_PORT: '0',
    ...s3.variables,
  });
  const silent = createLogger({ service: 'posts', level: 'silent' });
  await migratePosts(postsConfig, silent);
  postsService = await startPostsService(postsConfig, silent);
  const config = loadJobsConfig({
    POSTS_GRPC_ADDRESS: `127.0.0.1:${String(postsService.readyFields?.grpc_port)}`,
    DATABASE_URL: database.url,
    NATS_URL: testNatsUrl(),
    NATS_SUBJECT_PREFIX: prefix,
    REDIS_URL: testRedisUrl(),
    REDIS_KEY_PREFIX: `${prefix}:`,
    SMTP_URL: 'smtp://127.0.0.1:1',
    PUBLIC_APP_URL: 'http://app.example.test',
    METRICS_PORT: '0',
    JOBS_RETRY_BASE_MS: '50',
    ...s3.variables,
  });
  worker = await startWorker(config, createLogger({ service: 'jobs', level: 'silent' }));
  nc = await connect({ servers: testNatsUrl() });
  js = nc.jetstream();
});

afterAll(async () => {
  await worker?.stop();
  await postsService?.stop();
  const jsm = await nc?.jetstreamManager();
  await jsm?.streams.delete(names.jobsStream).catch(() => undefined);
  await jsm?.streams.delete(names.deadLetterStream).catch(() => undefined);
  await nc?.drain();
  storage?.destroy();
  await pool?.end();
  await s3?.close();
  await database?.drop();
});

/** The words a post is a champion of (search.post_term_champions), strongest first. */
async function championsOf(postId: string): Promise<string[]> {
  const { rows } = await pool.query<{ lexeme: string }>(
    'SELECT lexeme FROM search.post_term_champions WHERE post_id = $1 ORDER BY impact DESC, lexeme',
    [postId],
  );
  return rows.map((row) => row.lexeme);
}

/** The words as the index stems them ("wabcs" is kept as "wabc"). */
async function lexemesOf(words: string[]): Promise<string[]> {
  const { rows } = await pool.query<{ lexeme: string }>(
    `SELECT (SELECT l.lexeme FROM unnest(to_tsvector('english', w.word)) AS l) AS lexeme FROM unnest($1::text[]) WITH ORDINALITY AS w (word, n) ORDER BY w.n`,
    [words],
  );
  return rows.map((row) => row.lexeme);
}

describe('jobs worker: search index and content deletion', () => {
  it('migrates schema search beside schema jobs, and again without applying anything', async () => {
    const { rows } = await pool.query<{ id: string }>('SELECT id FROM search.schema_migrations');
    expect(rows.map((r) => r.id)).toEqual(['search/001_post_documents.sql', 'search/002_term_champions.sql']);
    expect(await migrateJobsSchema(database.url)).toEqual([]);
  });

  it('indexes a post from its stored content so that words of the title and the content find it', async () => {
    const titleWord = uniqueWord();
    const contentWord = uniqueWord();
    const post = newPost(`Notes on ${titleWord}`);
    await indexed(post, `Some running text with ${contentWord} inside.`, contentWord);

    expect(await searchIds(titleWord)).toEqual([post.postId]);
    // English stemming: "runs" finds "running".
    expect(await searchIds(`${contentWord} runs`)).toEqual([post.postId]);
    expect(await documentOf(post.postId)).toEqual({ version: '1', deleted: false, title: `Notes on ${titleWord}` });
  });

  it('re-indexes an edit: found by the new words, no longer by the old ones', async () => {
    const [oldWord, newWord, newTitleWord] = [uniqueWord(), uniqueWord(), uniqueWord()];
    const post = newPost('First title');
    await indexed(post, `old text ${oldWord}`, oldWord);

    await putContent(post.key, `new text ${newWord}`);
    await publish(jobSubjects.indexPost, { ...post.job, version: 2, title: `Second ${newTitleWord}` });
    await waitFor(async () => ((await searchIds(newWord)).includes(post.postId) ? true : undefined));
    expect(await searchIds(newTitleWord)).toEqual([post.postId]);
    expect(await searchIds(oldWord)).toEqual([]);
    // The post is a champion of its new words only, in the transaction that wrote its document.
    const champions = await championsOf(post.postId);
    expect(champions).toEqual(expect.arrayContaining(await lexemesOf([newWord, newTitleWord])));
    expect(champions).not.toContain((await lexemesOf([oldWord]))[0]);
  });

  it('ignores an older version that arrives after a newer one', async () => {
    const [firstWord, secondWord] = [uniqueWord(), uniqueWord()];
    const post = newPost(`Second ${secondWord}`);
    await indexed({ job: { ...post.job, version: 2 } }, 'the body', secondWord);

    const before = await processed('search_index', 'superseded');
    await publish(jobSubjects.indexPost, { ...post.job, version: 1, title: `First ${firstWord}` });
    await outcomeAfter('search_index', 'superseded', before);
    expect(await searchIds(firstWord)).toEqual([]);
    expect(await searchIds(secondWord)).toEqual([post.postId]);
  });

  it('delete_content removes the object and the post from the index, leaving a tombstone', async () => {
    const word = uniqueWord();
    const post = newPost(`Doomed ${word}`);
    await indexed(post, 'short-lived', word);

    await publish(jobSubjects.deleteContent, { post_id: post.postId, storage_key: post.key, version: 2 });
    await waitFor(async () => ((await objectExists(post.key)) ? undefined : true), { description: 'the object deleted' });
    await waitFor(async () => ((await documentOf(post.postId))?.deleted ? true : undefined));
    expect(await searchIds(word)).toEqual([]);
    expect(await documentOf(post.postId)).toEqual({ version: '2', deleted: true, title: '' });
    expect(await championsOf(post.postId)).toEqual([]);
  });

  it('refuses a delete_content for a key that is no post\'s own, deleting nothing', async () => {
    const before = await processed('content_delete', 'refused');
    await putContent('config/settings.json', '{"keep": true}');
    await publish(jobSubjects.deleteContent, { post_id: randomUUID(), storage_key: 'config/settings.json', version: 2 });
    await outcomeAfter('content_delete', 'refused', before);
    expect(await objectExists('config/settings.json')).toBe(true);
  });

  it('does not resurrect a deleted post when its index job comes after the delete', async () => {
    const word = uniqueWord();
    const post = newPost(`Reordered ${word}`);
    await putContent(post.key, 'content that is about to go');
    let before = await processed('content_delete', 'completed');
    await publish(jobSubjects.deleteContent, { post_id: post.postId, storage_key: post.key, version: 2 });
    await outcomeAfter('content_delete', 'completed', before);

    // The index job finds the object gone and does nothing.
    before = await processed('search_index', 'superseded');
    await publish(jobSubjects.indexPost, post.job);
    await outcomeAfter('search_index', 'superseded', before);
    expect(await searchIds(word)).toEqual([]);

    // Even when it could still read the content (it read before the object went), the tombstone wins.
    await putContent(post.key, `content read just before the delete ${word}`);
    before = await processed('search_index', 'superseded');
    await publish(jobSubjects.indexPost, post.job);
    await outcomeAfter('search_index', 'superseded', before);
    expect(await searchIds(word)).toEqual([]);
    expect((await documentOf(post.postId))?.deleted).toBe(true);
  });

  it('treats a redelivered index or delete job as harmless', async () => {
    const word = uniqueWord();
    const post = newPost(`Twice ${word}`);
    await indexed(post, 'body', word);

    const duplicates = await processed('search_index', 'duplicate');
    await publish(jobSubjects.indexPost, post.job);
    await outcomeAfter('search_index', 'duplicate', duplicates);
    expect(await searchIds(word)).toEqual([post.postId]);

    const deletion: DeleteContentJob = { post_id: post.postId, storage_key: post.key, version: 2 };
    const completed = await processed('content_delete', 'completed');
    await publish(jobSubjects.deleteContent, deletion);
    await publish(jobSubjects.deleteContent, deletion);
    await waitFor(async () => ((await processed('content_delete', 'completed')) >= completed + 2 ? true : undefined), {
      description: 'both deliveries completed',
    });
    expect(await objectExists(post.key)).toBe(false);
    expect(await documentOf(post.postId)).toMatchObject({ version: '2', deleted: true });
    expect(await processed('content_delete', 'retried')).toBe(0);
  });

  it('purges tombstones older than a day, and only those', async () => {
    const [old, fresh] = [randomUUID(), randomUUID()];
    await pool.query(
      `INSERT INTO search.post_documents (post_id, title, document, version, deleted, updated_at)
       VALUES ($1, '', ''::tsvector, 2, true, now() - interval '25 hours'),
              ($2, '', ''::tsvector, 2, true, now() - interval '23 hours')`,
      [old, fresh],
    );
    expect(await purgeTombstones(pool)).toBeGreaterThanOrEqual(1);
    expect(await documentOf(old)).toBeUndefined();
    expect(await documentOf(fresh)).toMatchObject({ deleted: true });
  });

  it('indexes only the first part of very long content, without failing the job', async () => {
    const [early, late] = [uniqueWord(), uniqueWord()];
    // About 1 MiB of distinct words: more than PostgreSQL fits in one tsvector.
    const filler = Array.from({ length: 32_000 }, (_, i) => `f${i.toString(36)}x${randomBytes(12).toString('hex')}`).join(' ');
    const post = newPost('Long');
    await indexed(post, `${early} ${filler} ${late}`, early);
    expect(await searchIds(late)).toEqual([]);
    expect(await processed('search_index', 'retried')).toBe(0);
  });
});
