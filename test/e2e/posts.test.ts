import { waitFor } from '@latchkey/test-kit';
import { ApiClient } from '../support/api-client';
import { signedInAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { storedKeys } from '../support/object-store';
import { actionLogPageSchema, postPageSchema, postSchema } from '../../gateway/src/posts/post-schemas';

const MAX_CONTENT_BYTES = 4096;
let stack: E2eStack;
let alice: Awaited<ReturnType<typeof signedInAccount>>;
let bob: Awaited<ReturnType<typeof signedInAccount>>;
const anonymous = () => new ApiClient(stack.gatewayUrl);
const live = new Set<string>();

beforeAll(async () => {
  stack = await startE2eStack('posts', { POSTS_MAX_CONTENT_BYTES: String(MAX_CONTENT_BYTES) });
  alice = await signedInAccount(stack, 'alice');
  bob = await signedInAccount(stack, 'bob');
}, 60_000);

afterAll(async () => {
  await stack?.destroy();
});

async function createPost(client: ApiClient, title: string, content: string) {
  const response = await client.post('/v0/posts', { title, content });
  expect(response.status).toBe(201);
  const post = postSchema.parse(response.body);
  live.add(post.id);
  return post;
}

async function search(q: string) {
  const response = await anonymous().get(`/v0/search/posts?q=${encodeURIComponent(q)}`);
  expect(response.status).toBe(200);
  return postPageSchema.parse(response.body).items.map((item) => item.id);
}

/** S3 holds exactly the content of live posts (checked after each scenario). */
async function expectStoreMatchesLivePosts(): Promise<void> {
  const expected = [...live].map((id) => `posts/${id}`).sort();
  await waitFor(async () => (JSON.stringify(await storedKeys(stack)) === JSON.stringify(expected) ? true : undefined), {
    timeoutMs: 10_000,
    description: 'the object store to hold exactly the live posts',
  });
}

describe('posts', () => {
  it('creates, reads and lists a post with its author', async () => {
    const post = await createPost(alice.client, '  Hello, world  ', 'First post body');
    expect(post).toMatchObject({ title: 'Hello, world', content: 'First post body', author: { id: alice.id, handle: alice.handle } });
    expect(post.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);

    const read = await anonymous().get(`/v0/posts/${post.id}`);
    expect(read.status).toBe(200);
    expect(postSchema.parse(read.body)).toEqual(post);

    const list = postPageSchema.parse((await anonymous().get('/v0/posts?limit=5')).body);
    expect(list.items[0]).toEqual({ id: post.id, author: post.author, title: post.title, created_at: post.created_at, updated_at: post.updated_at });
    await expectStoreMatchesLivePosts();
  });

  it('shows a create, a retitle and a delete in the newest page as soon as each is answered', async () => {
    const newest = async () => postPageSchema.parse((await anonymous().get('/v0/posts')).body).items;
    // Read twice first, so that the gateway holds the page when the writes come.
    await newest();
    const before = await newest();

    const post = await createPost(alice.client, 'Fresh off the press', 'news');
    expect((await newest())[0]).toMatchObject({ id: post.id, title: 'Fresh off the press' });
    expect(await newest()).toHaveLength(Math.min(before.length + 1, 20));

    expect((await alice.client.request('PATCH', `/v0/posts/${post.id}`, { json: { title: 'Corrected headline' } })).status).toBe(200);
    expect((await newest())[0]).toMatchObject({ id: post.id, title: 'Corrected headline' });

    expect((await alice.client.delete(`/v0/posts/${post.id}`)).status).toBe(204);
    live.delete(post.id);
    expect((await newest()).map((item) => item.id)).not.toContain(post.id);
    await expectStoreMatchesLivePosts();

    const metrics = (await new ApiClient(stack.operationsUrl('gateway')).get('/metrics')).text;
    expect(Number(/post_list_cache_requests_total\{[^}]*outcome="hit"[^}]*\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThan(0);
    expect(Number(/post_list_cache_requests_total\{[^}]*outcome="miss"[^}]*\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(4);
  });

  it('pages 25 posts by 10, newest first, without duplicates, and filters by author', async () => {
    const created: string[] = [];
    for (let i = 0; i < 25; i += 1) created.push((await createPost(bob.client, `Bob post ${i}`, `number ${i}`)).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `/v0/posts?limit=10&author_id=${bob.id}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = postPageSchema.parse((await anonymous().get(query)).body);
      seen.push(...page.items.map((item) => item.id));
      for (const item of page.items) expect(item.author.id).toBe(bob.id);
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...created].reverse());
    expect(new Set(seen).size).toBe(25);
    await expectStoreMatchesLivePosts();
  });

  it('lets only the author edit, and search finds the new words, not the old', async () => {
    const post = await createPost(alice.client, 'Gardening notes', 'tomatoes need sunshine');
    await waitFor(async () => ((await search('tomatoes')).includes(post.id) ? true : undefined), { description: 'the post in search' });

    const forbidden = await bob.client.request('PATCH', `/v0/posts/${post.id}`, { json: { title: 'mine now' } });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toMatchObject({ code: 'post:forbidden' });

    const edited = await alice.client.request('PATCH', `/v0/posts/${post.id}`, { json: { content: 'cucumbers prefer shade' } });
    expect(edited.status).toBe(200);
    const after = postSchema.parse(edited.body);
    expect(after).toMatchObject({ title: 'Gardening notes', content: 'cucumbers prefer shade' });
    expect(Date.parse(after.updated_at)).toBeGreaterThanOrEqual(Date.parse(post.updated_at));
    expect((await anonymous().get(`/v0/posts/${post.id}`)).body).toMatchObject({ content: 'cucumbers prefer shade' });

    await waitFor(async () => ((await search('cucumbers')).includes(post.id) ? true : undefined), { description: 'the new words in search' });
    expect(await search('tomatoes')).not.toContain(post.id);
    expect((await alice.client.request('PATCH', `/v0/posts/${post.id}`, { json: {} })).status).toBe(400);
    await expectStoreMatchesLivePosts();
  });

  it('lets only the author delete; the content and the search entry go too', async () => {
    const post = await createPost(alice.client, 'Short-lived', 'ephemeral mayfly words');
    await waitFor(async () => ((await search('mayfly')).includes(post.id) ? true : undefined), { description: 'the post in search' });
    expect((await bob.client.delete(`/v0/posts/${post.id}`)).body).toMatchObject({ status: 403, code: 'post:forbidden' });
    expect((await anonymous().delete(`/v0/posts/${post.id}`)).status).toBe(401);

    expect((await alice.client.delete(`/v0/posts/${post.id}`)).status).toBe(204);
    live.delete(post.id);
    expect((await anonymous().get(`/v0/posts/${post.id}`)).body).toMatchObject({ status: 404, code: 'post:not_found' });
    expect((await alice.client.delete(`/v0/posts/${post.id}`)).status).toBe(404);
    expect(await search('mayfly')).not.toContain(post.id);
    await expectStoreMatchesLivePosts();
  });

  it('records the author’s actions, newest first', async () => {
    const carol = await signedInAccount(stack, 'carol');
    const post = await createPost(carol.client, 'Logged', 'something');
    await carol.client.request('PATCH', `/v0/posts/${post.id}`, { json: { title: 'Logged again' } });
    await carol.client.delete(`/v0/posts/${post.id}`);
    live.delete(post.id);
    const page = actionLogPageSchema.parse((await carol.client.get('/v0/users/me/action-logs')).body);
    expect(page.items.map((entry) => entry.action)).toEqual(['post:delete', 'post:edit', 'post:create']);
    for (const entry of page.items) expect(entry).toMatchObject({ resource_type: 'post', resource_id: post.id });
    expect(page.next_cursor).toBeNull();
    expect((await anonymous().get('/v0/users/me/action-logs')).status).toBe(401);
    await expectStoreMatchesLivePosts();
  });
});

describe('posts: bad input', () => {
  it('refuses malformed ids, cursors, limits and author ids with 400', async () => {
    for (const path of [
      '/v0/posts/not-a-uuid',
      '/v0/posts?limit=0',
      '/v0/posts?limit=101',
      '/v0/posts?limit=ten',
      '/v0/posts?cursor=%%%garbage',
      '/v0/posts?author_id=42',
      '/v0/search/posts',
      `/v0/search/posts?q=${'x'.repeat(201)}`,
      `/v0/search/posts?q=${encodeURIComponent(Array.from({ length: 17 }, (_, i) => `w${i}`).join(' '))}`,
    ]) {
      const response = await anonymous().get(path);
      expect({ path, status: response.status, code: response.body?.code }).toEqual({ path, status: 400, code: 'validation:invalid_input' });
    }
  });

  it('answers an unknown post with 404 and a post without a session with 401', async () => {
    expect((await anonymous().get('/v0/posts/01900000-0000-7000-8000-000000000000')).body).toMatchObject({ code: 'post:not_found' });
    expect((await anonymous().post('/v0/posts', { title: 't', content: 'c' })).status).toBe(401);
  });

  it('names the field for a bad title or content, and refuses what is over the content limit', async () => {
    for (const body of [
      { title: '', content: 'x' },
      { title: '   ', content: 'x' },
      { title: 'x'.repeat(201), content: 'x' },
      { title: 't', content: '' },
      { title: 't', content: 'é'.repeat(MAX_CONTENT_BYTES / 2 + 1) },
      { title: 5, content: 'x' },
    ]) {
      const response = await alice.client.post('/v0/posts', body);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'validation:invalid_input', errors: [expect.objectContaining({ field: expect.stringMatching(/title|content/) })] });
    }
    const huge = await alice.client.post('/v0/posts', { title: 't', content: 'x'.repeat(3 * MAX_CONTENT_BYTES + 70 * 1024) });
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ code: 'validation:payload_too_large' });
    await expectStoreMatchesLivePosts();
  });
});
