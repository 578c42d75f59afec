import type { S3Client } from '@aws-sdk/client-s3';
import { AppError } from '@latchkey/errors';
import { freePort, startS3Server, startSilentServer, type S3Server, type SilentServer } from '@latchkey/test-kit';
import { ContentStore } from './content-store';
import { createS3Client } from './s3-client';

let s3: S3Server;
let silent: SilentServer;
const warnings: { details: Record<string, unknown>; message: string }[] = [];
const logger = { warn: (details: Record<string, unknown>, message: string) => void warnings.push({ details, message }) };

const clients: S3Client[] = [];

function storeAt(endpoint: string, bucket: string): ContentStore {
  const client = createS3Client(
    {
      S3_ENDPOINT: endpoint,
      S3_REGION: s3.region,
      S3_ACCESS_KEY_ID: s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      S3_FORCE_PATH_STYLE: true,
    },
    { connectionTimeoutMs: 1_000, requestTimeoutMs: 2_000, maxAttempts: 1 },
  );
  clients.push(client);
  return new ContentStore({ client, bucket, logger });
}

beforeAll(async () => {
  [s3, silent] = await Promise.all([startS3Server(), startSilentServer()]);
});

beforeEach(() => {
  warnings.length = 0;
});

afterAll(async () => {
  for (const client of clients) client.destroy();
  await Promise.all([s3.close(), silent.close()]);
});

test('reads back what it wrote, as UTF-8 text, and an overwrite replaces it', async () => {
  const store = storeAt(s3.endpoint, s3.bucket);
  await store.write('posts/a', 'Grüße, 世界');
  expect(await store.read('posts/a')).toBe('Grüße, 世界');
  await store.write('posts/a', 'second');
  expect(await store.read('posts/a')).toBe('second');
});

test('a missing object reads as undefined and deletes without error, so repeated deletes succeed', async () => {
  const store = storeAt(s3.endpoint, s3.bucket);
  expect(await store.read('posts/never-written')).toBeUndefined();
  await store.write('posts/b', 'gone soon');
  await store.remove('posts/b');
  await store.remove('posts/b');
  expect(await store.read('posts/b')).toBeUndefined();
  expect(warnings).toEqual([]);
});

test('a store that cannot be reached is service:unavailable, logged without the content', async () => {
  // A port nothing listens on: connections are refused.
  const store = storeAt(`http://127.0.0.1:${await freePort()}`, s3.bucket);
  const failure = await store.write('posts/c', 'secret words').catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(AppError);
  expect((failure as AppError).code).toBe('service:unavailable');
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatchObject({ message: 'object store request failed', details: { operation: 'put', key: 'posts/c' } });
  expect(JSON.stringify(warnings[0]!.details)).not.toContain('secret words');
});

test('an aborted signal abandons a request the store never answers', async () => {
  const store = storeAt(`http://127.0.0.1:${silent.port}`, s3.bucket);
  const controller = new AbortController();
  const started = Date.now();
  const read = store.read('posts/d', { signal: controller.signal }).catch((error: unknown) => error);
  setTimeout(() => controller.abort(), 50);
  expect(await read).toBeInstanceOf(AppError);
  // Well before the 2 s request timeout: the abort ended it.
  expect(Date.now() - started).toBeLessThan(1_500);
});
