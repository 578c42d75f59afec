import { connect } from 'nats';
import { topology as streamNames } from '@latchkey/job-streams';
import { waitFor } from '@latchkey/test-kit';
import { countMails, newAccount, signedInAccount } from '../support/accounts';
import { ApiClient } from '../support/api-client';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { startTopology, type RunningTopology } from '../support/topology';

/**
 * A burst of post writes and registrations while a NATS server dies, and
 * while the PostgreSQL primary restarts, on the production topology (a
 * 3-node NATS cluster with 3 replicas per stream, PostgreSQL with a
 * streaming replica behind PgBouncer in transaction mode): every answered
 * post is kept and indexed, and every verification mail is sent exactly once.
 */
jest.setTimeout(300_000);

const POSTS = 200;
const REGISTRATIONS = 20;
/** Requests in flight at once, as from a handful of busy clients. */
const CONCURRENCY = 8;

let topology: RunningTopology;
let stack: E2eStack;
let author: Awaited<ReturnType<typeof signedInAccount>>;

beforeAll(async () => {
  topology = await startTopology({ postgres: true, nats: true });
  stack = await startE2eStack(
    'burst',
    {
      // The burst is one author and one address: the abuse limits are not what is tested here.
      RATE_LIMIT_POST_WRITES: '100000',
      RATE_LIMIT_IP_MAX: '100000',
      RATE_LIMIT_SEARCH_MAX: '100000',
    },
    { topology: topology.addresses },
  );
  author = await signedInAccount(stack, 'burst');
});

afterAll(async () => {
  await stack?.destroy();
  await topology?.stop();
});

/** Runs `work(i)` for i in [0, count) with at most CONCURRENCY at once. */
async function inParallel<T>(count: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await work(i);
      }
    }),
  );
  return results;
}

/** Every post id a search for `word` finds, all pages. */
async function searchAll(word: string): Promise<Set<string>> {
  const found = new Set<string>();
  const client = new ApiClient(stack.gatewayUrl);
  let cursor = '';
  for (;;) {
    const page = await client.get<{ items: { id: string }[]; next_cursor: string | null }>(
      `/v0/search/posts?q=${word}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    if (page.status !== 200) throw new Error(`search answered ${page.status}`);
    for (const item of page.body.items) found.add(item.id);
    if (!page.body.next_cursor) return found;
    cursor = page.body.next_cursor;
  }
}

/** Waits until the mail consumer has nothing pending or unacknowledged: no mail can still come. */
async function mailQueueSettled(): Promise<void> {
  const nats = await connect({ servers: topology.addresses.natsUrls!.split(',').filter((url) => url !== '') });
  try {
    const names = streamNames(stack.env.NATS_SUBJECT_PREFIX!);
    const jsm = await nats.jetstreamManager();
    await waitFor(
      async () => {
        const info = await jsm.consumers.info(names.jobsStream, names.consumer('mail'));
        return info.num_pending === 0 && info.num_ack_pending === 0 ? true : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250, description: 'the mail jobs to be done' },
    );
  } finally {
    await nats.close();
  }
}

/**
 * 200 posts and 20 registrations, `disrupt` called once a quarter of the
 * posts are answered; answers the ids of the posts answered 201, the
 * addresses registered (201), and every status seen.
 */
async function burst(word: string, disrupt: () => Promise<void>) {
  const posted: string[] = [];
  const statuses: number[] = [];
  let disrupted: Promise<void> | undefined;
  const registered: string[] = [];
  const posts = inParallel(POSTS, async (i) => {
    const response = await author.client.post<{ id: string }>('/v0/posts', { title: `${word} number ${i}`, content: `burst ${word} ${i}` });
    statuses.push(response.status);
    if (response.status === 201) posted.push(response.body.id);
    if (posted.length === POSTS / 4) disrupted ??= disrupt();
  });
  const registrations = inParallel(REGISTRATIONS, async () => {
    const account = newAccount('burst');
    const response = await new ApiClient(stack.gatewayUrl).post('/v0/users', account);
    statuses.push(response.status);
    if (response.status === 201) registered.push(account.email);
  });
  await Promise.all([posts, registrations]);
  await disrupted;
  return { posted, registered, statuses };
}

async function expectEveryPostIndexed(word: string, posted: readonly string[]): Promise<void> {
  await waitFor(
    async () => {
      const found = await searchAll(word);
      return posted.every((id) => found.has(id)) ? true : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 1_000, description: `every answered ${word} post to be searchable` },
  );
}

async function expectOneMailEach(addresses: readonly string[]): Promise<void> {
  await waitFor(() => (addresses.every((to) => countMails(stack, to, 'verify-email') >= 1) ? true : undefined), {
    timeoutMs: 120_000,
    intervalMs: 500,
    description: 'a verification mail to every registered address',
  });
  await mailQueueSettled();
  expect(addresses.map((to) => countMails(stack, to, 'verify-email'))).toEqual(addresses.map(() => 1));
}

it('loses no post and sends every mail once while a NATS server dies', async () => {
  const victim = topology.nats!.servers[0]!;
  const { posted, registered, statuses } = await burst('natskill', () => victim.kill());
  // The broker is behind the outbox: no request had to fail.
  expect(statuses.filter((status) => status !== 201)).toEqual([]);
  expect(posted).toHaveLength(POSTS);
  expect(registered).toHaveLength(REGISTRATIONS);
  await expectEveryPostIndexed('natskill', posted);
  await expectOneMailEach(registered);
  await victim.start();
});

it('loses no answered post while the PostgreSQL primary restarts, and the outbox resumes', async () => {
  const { posted, registered, statuses } = await burst('pgrestart', () => topology.postgres!.primary.restart());
  // In flight during the restart: 503 (nothing written), never a 500.
  expect(statuses.filter((status) => status !== 201 && status !== 503)).toEqual([]);
  expect(posted.length).toBeGreaterThan(POSTS / 4);
  // Kept: each reads back once the pools have replaced the connections the restart closed.
  await waitFor(
    async () => {
      const statuses = await Promise.all(posted.map(async (id) => (await author.client.get(`/v0/posts/${id}`)).status));
      return statuses.every((status) => status === 200) ? true : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 500, description: 'every answered post to read back' },
  );
  await expectEveryPostIndexed('pgrestart', posted);
  await expectOneMailEach(registered);
});
