import { Redis } from 'ioredis';
import { testRedisUrl, uniqueName, waitFor } from '@latchkey/test-kit';
import { LoginFailures } from '../../src/limits/login-failures';

let redis: Redis;
let prefix: string;
let failures: LoginFailures;
const settings = { perClient: 10, perAccount: 25, windowSeconds: 60 };

beforeAll(() => {
  redis = new Redis(testRedisUrl());
});

beforeEach(() => {
  prefix = `${uniqueName('login-failures')}:`;
  failures = new LoginFailures(redis, prefix, settings);
});

afterEach(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
});

afterAll(async () => {
  await redis.quit();
});

const allowedOf = async (attempts: Promise<{ allowed: boolean }>[]): Promise<number> =>
  (await Promise.all(attempts)).filter((decision) => decision.allowed).length;

test('parallel attempts from one client reserve at most the limit', async () => {
  expect(await allowedOf(Array.from({ length: 40 }, () => failures.reserve('owner@example.com', '203.0.113.7')))).toBe(10);
  const refused = await failures.reserve('owner@example.com', '203.0.113.7');
  expect(refused.allowed).toBe(false);
  expect(refused.retryAfterSeconds).toBeGreaterThan(55);
  expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
});

test("one client's failures do not refuse another client, and the email's case does not matter", async () => {
  await allowedOf(Array.from({ length: 10 }, () => failures.reserve('Owner@Example.com', '203.0.113.7')));
  expect((await failures.reserve('owner@example.com', '203.0.113.7')).allowed).toBe(false);
  expect((await failures.reserve('owner@example.com', '198.51.100.1')).allowed).toBe(true);
});

test('the account ceiling binds guessers spread over many clients', async () => {
  let allowed = 0;
  for (let client = 0; client < 10; client++) allowed += await allowedOf(Array.from({ length: 5 }, () => failures.reserve('owner@example.com', `10.0.0.${client}`)));
  expect(allowed).toBe(25);
  expect((await failures.reserve('owner@example.com', '10.0.1.1')).allowed).toBe(false);
});

test("a right password forgives its client's failures and takes them off the account's count", async () => {
  for (let i = 0; i < 9; i++) await failures.reserve('owner@example.com', 'a');
  await failures.reserve('owner@example.com', 'a');
  await failures.succeeded('owner@example.com', 'a');
  expect(await allowedOf(Array.from({ length: 12 }, () => failures.reserve('owner@example.com', 'a')))).toBe(10);
});

test('an attempt that was not a wrong password gives its place back', async () => {
  for (let i = 0; i < 10; i++) {
    expect((await failures.reserve('owner@example.com', 'a')).allowed).toBe(true);
    await failures.giveBack('owner@example.com', 'a');
  }
  expect(await allowedOf(Array.from({ length: 10 }, () => failures.reserve('owner@example.com', 'a')))).toBe(10);
});

test('clearing, as after a password reset, forgives every client; Redis holds no address', async () => {
  for (let client = 0; client < 3; client++) await allowedOf(Array.from({ length: 10 }, () => failures.reserve('owner@example.com', `c${client}`)));
  expect((await redis.keys(`${prefix}*`)).join()).not.toMatch(/owner|example/);
  await failures.clear('owner@example.com');
  expect((await failures.reserve('owner@example.com', 'c0')).allowed).toBe(true);
});

test('the counts end with their window', async () => {
  const short = new LoginFailures(redis, prefix, { ...settings, perClient: 1, windowSeconds: 1 });
  await short.reserve('owner@example.com', 'a');
  expect((await short.reserve('owner@example.com', 'a')).allowed).toBe(false);
  await waitFor(async () => ((await short.reserve('owner@example.com', 'a')).allowed ? true : undefined), {
    timeoutMs: 3_000,
    description: 'the window to end',
  });
});
