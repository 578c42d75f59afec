import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { AppError } from '@latchkey/errors';
import { testRedisUrl, testRequestContext, uniqueName, waitFor } from '@latchkey/test-kit';
import { SignInMethodLock } from '../../src/accounts/sign-in-method-lock';

let redis: Redis;
let lock: SignInMethodLock;
let prefix: string;

beforeAll(() => {
  redis = new Redis(testRedisUrl());
  prefix = `${uniqueName('ways_in')}:`;
  lock = new SignInMethodLock(redis, prefix);
});

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

/** Work that records when it ran, and finishes only when told to. */
function gatedWork(log: string[], name: string) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  return {
    open: () => open(),
    work: async () => {
      log.push(`${name} started`);
      await gate;
      log.push(`${name} finished`);
      return name;
    },
  };
}

describe('SignInMethodLock', () => {
  it('runs one account’s removals one after the other, and other accounts’ beside them', async () => {
    const user = randomUUID();
    const log: string[] = [];
    const first = gatedWork(log, 'first');
    const second = gatedWork(log, 'second');
    const other = gatedWork(log, 'other account');

    const running = lock.hold(user, testRequestContext(), first.work);
    while (!log.includes('first started')) await new Promise((resolve) => setImmediate(resolve));
    const waiting = lock.hold(user, testRequestContext(), second.work);
    const beside = lock.hold(randomUUID(), testRequestContext(), other.work);
    other.open();
    await expect(beside).resolves.toBe('other account');
    second.open();
    expect(log).toEqual(['first started', 'other account started', 'other account finished']);

    first.open();
    await expect(Promise.all([running, waiting])).resolves.toEqual(['first', 'second']);
    expect(log.slice(3)).toEqual(['first finished', 'second started', 'second finished']);
  });

  it('releases the lock when the work fails', async () => {
    const user = randomUUID();
    await expect(lock.hold(user, testRequestContext(), () => Promise.reject(new AppError('passkey:last_login_method')))).rejects.toMatchObject({
      code: 'passkey:last_login_method',
    });
    await expect(lock.hold(user, testRequestContext(300), async () => 'next')).resolves.toBe('next');
  });

  it('waits no longer than the request’s deadline, then answers service:unavailable without running the work', async () => {
    const user = randomUUID();
    const holder = gatedWork([], 'holder');
    const held = lock.hold(user, testRequestContext(), holder.work);
    const work = jest.fn(async () => 'never');
    await expect(lock.hold(user, testRequestContext(200), work)).rejects.toMatchObject({ code: 'service:unavailable' });
    expect(work).not.toHaveBeenCalled();
    holder.open();
    await held;
  });

  it('leases the lock until shortly after the deadline, so a holder that died frees it', async () => {
    const user = randomUUID();
    let releaseAbandoned!: () => void;
    // Holds the lock and never returns, like a gateway that died mid-request.
    void lock.hold(user, testRequestContext(100), () => new Promise<void>((resolve) => (releaseAbandoned = resolve)));
    const key = await waitFor(async () => (await redis.keys(`${prefix}*${user}`))[0], { description: 'the lock taken' });
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(100 + 1_000);
    releaseAbandoned();
  });
});
