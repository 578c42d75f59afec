import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppError } from '@latchkey/errors';
import { createOpenSearchClient, isOpenSearchStatus, openSearchUnavailable, postIndexMapping, searchedFields, type PostDocument } from './opensearch-index';

/** A cluster that answers every request with `status` and records what it was sent. */
let server: Server;
let url: string;
let status = 200;
const received: { method: string; path: string; headers: IncomingHttpHeaders }[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    received.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers });
    request.resume();
    request.on('end', () => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(status === 200 ? { _id: 'p1', found: true, _source: {} } : { error: { type: 'test' }, status }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  received.length = 0;
  status = 200;
});

test('createOpenSearchClient() refuses to build without OPENSEARCH_URL', () => {
  expect(() => createOpenSearchClient({}, { requestTimeoutMs: 1_000 })).toThrow('OPENSEARCH_URL is not set');
});

test('createOpenSearchClient() sends the basic-authentication pair when both are set, and nothing without it', async () => {
  const withCredentials = createOpenSearchClient({ OPENSEARCH_URL: url, OPENSEARCH_USERNAME: 'latchkey', OPENSEARCH_PASSWORD: 's3cret' }, { requestTimeoutMs: 1_000 });
  const anonymous = createOpenSearchClient({ OPENSEARCH_URL: url }, { requestTimeoutMs: 1_000 });
  try {
    await withCredentials.get({ index: 'posts', id: 'p1' });
    await anonymous.get({ index: 'posts', id: 'p1' });
  } finally {
    await withCredentials.close();
    await anonymous.close();
  }
  expect(received.map(({ method, path }) => `${method} ${path}`)).toEqual(['GET /posts/_doc/p1', 'GET /posts/_doc/p1']);
  expect(received[0]!.headers.authorization).toBe(`Basic ${Buffer.from('latchkey:s3cret').toString('base64')}`);
  expect(received[1]!.headers.authorization).toBeUndefined();
});

test('createOpenSearchClient() does not retry: one failed request is one request, and the error names its status', async () => {
  const client = createOpenSearchClient({ OPENSEARCH_URL: url }, { requestTimeoutMs: 1_000 });
  status = 503;
  try {
    const error = await client.get({ index: 'posts', id: 'p1' }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(received).toHaveLength(1);
    expect(isOpenSearchStatus(error, 503)).toBe(true);
    expect(isOpenSearchStatus(error, 404)).toBe(false);
    status = 404;
    const missing = await client.get({ index: 'posts', id: 'p2' }).catch((caught: unknown) => caught);
    expect(isOpenSearchStatus(missing, 404)).toBe(true);
  } finally {
    await client.close();
  }
});

test('isOpenSearchStatus() is false for anything the cluster did not answer', () => {
  expect(isOpenSearchStatus(new Error('ECONNREFUSED'), 404)).toBe(false);
  expect(isOpenSearchStatus(undefined, 404)).toBe(false);
});

test('openSearchUnavailable() is service:unavailable, naming the operation and keeping the cause', () => {
  const cause = new Error('socket hang up');
  const error = openSearchUnavailable(cause, 'index the post');
  expect(error).toBeInstanceOf(AppError);
  expect(error).toMatchObject({ code: 'service:unavailable', message: 'The search engine could not index the post.', cause });
});

test('postIndexMapping maps exactly the fields of a PostDocument, strictly, and search matches the analysed ones', () => {
  const document: PostDocument = { post_id: 'p', author_id: null, title: 't', content: 'c', version: 1, deleted: false, updated_at: '2026-01-01T00:00:00Z' };
  expect(Object.keys(postIndexMapping.mappings.properties).sort()).toEqual(Object.keys(document).sort());
  expect(postIndexMapping.mappings.dynamic).toBe('strict');
  for (const field of searchedFields.map((spec) => spec.split('^')[0]!)) {
    expect(postIndexMapping.mappings.properties[field as 'title' | 'content']).toMatchObject({ type: 'text', analyzer: 'english' });
  }
});
