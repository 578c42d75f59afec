import { randomUUID } from 'node:crypto';
import { AppError } from '@latchkey/errors';
import { createOpenSearchClient, type OpenSearchClient } from '@latchkey/search-engine';
import { startFakeOpenSearch, type FakeOpenSearch } from '@latchkey/test-kit';
import { OpenSearchPostIndex } from '../../src/opensearch-post-index';
import { TOMBSTONE_RETENTION_HOURS } from '../../src/search-index';

/** The index rules of post-search-index.ts, kept by OpenSearch's external versions (against a stand-in cluster). */

let cluster: FakeOpenSearch;
let client: OpenSearchClient;
let now = new Date('2026-11-01T00:00:00Z');
let index: OpenSearchPostIndex;
const name = 'posts-under-test';

const version = (postId: string, v: number, content = `text of version ${v}`) => ({
  postId,
  authorId: randomUUID(),
  title: `Title ${v}`,
  content,
  version: v,
});

beforeAll(async () => {
  cluster = await startFakeOpenSearch();
  client = createOpenSearchClient({ OPENSEARCH_URL: cluster.url }, { requestTimeoutMs: 5_000 });
  index = new OpenSearchPostIndex(client, name, () => now);
  await index.ensureIndex();
});

afterAll(async () => {
  await client.close();
  await cluster.close();
});

describe('OpenSearchPostIndex', () => {
  it('creates its index once, whoever starts first', async () => {
    await index.ensureIndex();
    await new OpenSearchPostIndex(client, name).ensureIndex();
    expect(cluster.requests.filter((request) => request === `PUT /${name}`)).toHaveLength(1);
  });

  it('writes a newer version, and calls a redelivery a duplicate and an older one superseded', async () => {
    const postId = randomUUID();
    expect(await index.staleOutcome(postId, 1)).toBeUndefined();
    expect(await index.upsert(version(postId, 1))).toBe('completed');
    expect(await index.upsert(version(postId, 3))).toBe('completed');
    expect(await index.upsert(version(postId, 3))).toBe('duplicate');
    expect(await index.upsert(version(postId, 2))).toBe('superseded');
    expect(await index.staleOutcome(postId, 2)).toBe('superseded');
    expect(cluster.documents(name)?.get(postId)?.source).toMatchObject({ version: 3, content: 'text of version 3', deleted: false });
  });

  it('keeps a tombstone against index jobs of any version, and its age against a second delete', async () => {
    const postId = randomUUID();
    await index.upsert(version(postId, 1));
    await index.tombstone(postId, 2);
    const tombstone = cluster.documents(name)?.get(postId)?.source;
    expect(tombstone).toMatchObject({ deleted: true, title: '', content: '', version: 2 });
    expect(await index.upsert(version(postId, 7))).toBe('superseded');
    expect(await index.staleOutcome(postId, 7)).toBe('superseded');
    now = new Date(now.getTime() + 60_000);
    await index.tombstone(postId, 2);
    expect(cluster.documents(name)?.get(postId)?.source.updated_at).toBe(tombstone?.updated_at);
  });

  it('purges only tombstones older than the retention', async () => {
    const old = randomUUID();
    const recent = randomUUID();
    const live = randomUUID();
    await index.upsert(version(live, 1));
    await index.tombstone(old, 1);
    now = new Date(now.getTime() + (TOMBSTONE_RETENTION_HOURS + 1) * 3_600_000);
    await index.tombstone(recent, 1);
    expect(await index.purgeTombstones()).toBeGreaterThanOrEqual(1);
    const documents = cluster.documents(name);
    expect(documents?.has(old)).toBe(false);
    expect(documents?.has(recent)).toBe(true);
    expect(documents?.has(live)).toBe(true);
  });

  it('indexes at most MAX_INDEXED_CONTENT_CHARS of the content', async () => {
    const postId = randomUUID();
    await index.upsert(version(postId, 1, 'x'.repeat(250_000)));
    expect(String(cluster.documents(name)?.get(postId)?.source.content).length).toBe(200_000);
  });

  it('turns a failing cluster into service:unavailable, so that the job is retried', async () => {
    cluster.fail(500);
    try {
      const failure = await index.upsert(version(randomUUID(), 1)).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(AppError);
      expect((failure as AppError).code).toBe('service:unavailable');
    } finally {
      cluster.recover();
    }
  });
});
