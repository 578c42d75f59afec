import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { BenchTarget } from './bench-stack';

/**
 * Seeds through the HTTP API only, as a client would: registration, the
 * mailed verification link, login, an organisation with invitations by
 * mail, post creation. That works the same for a launched stack and for
 * BENCH_URL's.
 */

/** A registered, verified and signed-in account. */
export interface SignedInUser {
  readonly id: string;
  readonly handle: string;
  readonly email: string;
  readonly password: string;
  /** The `session_id` cookie value of the session made at seeding; it acts for no organisation. */
  readonly cookie: string;
}

export interface SeededUser extends SignedInUser {
  /** The account's role in the seed's organisation: the first account created it, the others were invited. */
  readonly orgRole: 'owner' | 'member';
  /** A second session of the account, acting for the seed's organisation (PUT /v0/auth/session/org). */
  readonly orgCookie: string;
}

export interface Seed {
  readonly users: readonly SeededUser[];
  /** The organisation every seeded account belongs to. */
  readonly organizationId: string;
  readonly postIds: readonly string[];
}

export interface SeedSettings {
  readonly users: number;
  readonly posts: number;
  /** Requests in flight while creating posts. */
  readonly concurrency?: number;
  readonly onProgress?: (message: string) => void;
  readonly signal?: AbortSignal;
}

/** Verification mails go out through the outbox, JetStream and the jobs worker. */
const MAIL_TIMEOUT_MS = 30_000;
/** About the size of a short article, so that the S3 reads move some bytes. */
const CONTENT_BYTES = 1_024;

const idBody = z.object({ id: z.string() });

interface JsonResponse {
  readonly status: number;
  readonly body: unknown;
  readonly text: string;
  readonly headers: Headers;
}

async function requestJson(
  baseUrl: string,
  method: string,
  path: string,
  options: { json?: unknown; cookie?: string } = {},
): Promise<JsonResponse> {
  const headers: Record<string, string> = {};
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  if (options.cookie !== undefined) headers.cookie = `session_id=${options.cookie}`;
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    ...(options.json === undefined ? {} : { body: JSON.stringify(options.json) }),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = text.length > 0 ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, body, text, headers: response.headers };
}

function expectStatus(response: JsonResponse, status: number, what: string): void {
  if (response.status === status) return;
  throw new Error(`${what}: expected ${status}, got ${response.status}: ${response.text.slice(0, 500)}`);
}

/**
 * Runs `task` for 0..count-1 with at most `concurrency` at once, answering
 * results in order; an aborted signal stops it starting more.
 */
export async function mapConcurrently<T>(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<T>,
  signal?: AbortSignal,
): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) {
      signal?.throwIfAborted();
      const index = next;
      next += 1;
      results[index] = await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  return results;
}

/** The session cookie a login set. */
export function sessionCookieOf(headers: Headers): string | undefined {
  for (const line of headers.getSetCookie()) {
    const value = /^session_id=([^;]+)/.exec(line)?.[1];
    if (value) return value;
  }
  return undefined;
}

async function signIn(target: BenchTarget, user: Pick<SignedInUser, 'email' | 'password'>): Promise<string> {
  const login = await requestJson(target.gatewayUrl, 'POST', '/v0/auth/login', {
    json: { email: user.email, password: user.password },
  });
  expectStatus(login, 200, `login of ${user.email}`);
  const cookie = sessionCookieOf(login.headers);
  if (!cookie) throw new Error(`login of ${user.email} set no session cookie`);
  return cookie;
}

/** Registers, verifies and signs in `count` accounts. */
export async function seedUsers(
  target: BenchTarget,
  count: number,
  runTag: string,
  signal?: AbortSignal,
): Promise<SignedInUser[]> {
  const password = randomBytes(18).toString('base64url');
  // Argon2 hashing dominates; more at once than the thread pool holds only queues.
  return mapConcurrently(count, target.threadPoolSize, async (index) => {
    const handle = `b${runTag}_${index}`;
    const email = `bench.${runTag}.${index}@example.com`;
    const registered = await requestJson(target.gatewayUrl, 'POST', '/v0/users', { json: { handle, email, password } });
    expectStatus(registered, 201, `registration of ${email}`);
    const { id } = idBody.parse(registered.body);
    const token = await target.mailedToken(email, 'verify-email', MAIL_TIMEOUT_MS);
    expectStatus(
      await requestJson(target.gatewayUrl, 'POST', '/v0/auth/verify-email', { json: { token } }),
      200,
      `verification of ${email}`,
    );
    const user = { id, handle, email, password };
    return { ...user, cookie: await signIn(target, user) };
  }, signal);
}

/**
 * The first account creates an organisation and invites the others by mail
 * as members; each accepts with its session, then signs in once more and
 * makes that second session act for the organisation.
 */
export async function seedOrganization(
  target: BenchTarget,
  accounts: readonly SignedInUser[],
  runTag: string,
  signal?: AbortSignal,
): Promise<{ organizationId: string; users: SeededUser[] }> {
  const owner = accounts[0];
  if (!owner) throw new Error('an organisation needs at least one seeded account');
  const created = await requestJson(target.gatewayUrl, 'POST', '/v0/orgs', {
    cookie: owner.cookie,
    json: { name: `Bench ${runTag}`, slug: `bench-${runTag}` },
  });
  expectStatus(created, 201, `the organisation of ${owner.email}`);
  const organizationId = idBody.parse(created.body).id;
  const invited = accounts.slice(1);
  await mapConcurrently(invited.length, target.threadPoolSize, async (index) => {
    const member = invited[index] as SignedInUser;
    const invitation = await requestJson(target.gatewayUrl, 'POST', `/v0/orgs/${organizationId}/invitations`, {
      cookie: owner.cookie,
      json: { email: member.email, role: 'member' },
    });
    expectStatus(invitation, 201, `the invitation of ${member.email}`);
    const token = await target.mailedToken(member.email, 'invitations/accept', MAIL_TIMEOUT_MS);
    expectStatus(
      await requestJson(target.gatewayUrl, 'POST', '/v0/invitations/accept', { cookie: member.cookie, json: { token } }),
      200,
      `acceptance by ${member.email}`,
    );
  }, signal);
  // Argon2 hashing dominates the sign-ins, as in seedUsers.
  const users = await mapConcurrently(accounts.length, target.threadPoolSize, async (index): Promise<SeededUser> => {
    const account = accounts[index] as SignedInUser;
    const orgCookie = await signIn(target, account);
    expectStatus(
      await requestJson(target.gatewayUrl, 'PUT', '/v0/auth/session/org', { cookie: orgCookie, json: { org_id: organizationId } }),
      200,
      `the active organisation of ${account.email}`,
    );
    return { ...account, orgRole: index === 0 ? 'owner' : 'member', orgCookie };
  }, signal);
  return { organizationId, users };
}

/** Filler text of about `bytes` bytes; only its size matters. */
export function postContent(index: number, bytes = CONTENT_BYTES): string {
  const sentence = `Post ${index} of the bench: the quick brown fox jumps over the lazy dog while latency is measured. `;
  return sentence.repeat(Math.ceil(bytes / sentence.length)).slice(0, bytes);
}

/** Creates `count` posts, authors taken in turn, and answers their ids in creation order. */
export async function seedPosts(
  target: BenchTarget,
  users: readonly SeededUser[],
  count: number,
  concurrency: number,
  signal?: AbortSignal,
): Promise<string[]> {
  return mapConcurrently(count, concurrency, async (index) => {
    const author = users[index % users.length] as SeededUser;
    const created = await requestJson(target.gatewayUrl, 'POST', '/v0/posts', {
      cookie: author.cookie,
      json: { title: `Bench post ${index}`, content: postContent(index) },
    });
    expectStatus(created, 201, `post ${index}`);
    return idBody.parse(created.body).id;
  }, signal);
}

export async function seed(target: BenchTarget, settings: SeedSettings): Promise<Seed> {
  const runTag = randomBytes(3).toString('hex');
  const started = Date.now();
  const accounts = await seedUsers(target, settings.users, runTag, settings.signal);
  settings.onProgress?.(`seeded ${accounts.length} verified, signed-in users in ${Date.now() - started} ms`);
  const organizationStarted = Date.now();
  const { organizationId, users } = await seedOrganization(target, accounts, runTag, settings.signal);
  settings.onProgress?.(`seeded an organisation of ${users.length} members, each with a session acting for it, in ${Date.now() - organizationStarted} ms`);
  const postsStarted = Date.now();
  const postIds = await seedPosts(target, users, settings.posts, settings.concurrency ?? 16, settings.signal);
  settings.onProgress?.(`seeded ${postIds.length} posts in ${Date.now() - postsStarted} ms`);
  return { users, organizationId, postIds };
}

/**
 * Deletes the seeded organisation, then the accounts, and with them their
 * posts, sessions and index entries (docs/api.md: DELETE /v0/orgs/{org_id},
 * DELETE /v0/users/me; the organisation first, since its last owner cannot
 * leave it to members). Only needed for an external stack; a launched one
 * is dropped whole.
 */
export async function removeSeed(target: BenchTarget, { users, organizationId }: Pick<Seed, 'users' | 'organizationId'>): Promise<void> {
  const owner = users.find((user) => user.orgRole === 'owner');
  if (owner) {
    // Deleting an organisation needs a recent sign-in.
    const cookie = await signIn(target, owner);
    expectStatus(await requestJson(target.gatewayUrl, 'DELETE', `/v0/orgs/${organizationId}`, { cookie }), 204, `deletion of the organisation ${organizationId}`);
  }
  await mapConcurrently(users.length, target.threadPoolSize, async (index) => {
    const user = users[index] as SeededUser;
    // The seeding session may have ended (a rerun, a restart): sign in again.
    const cookie = await signIn(target, user);
    const deleted = await requestJson(target.gatewayUrl, 'DELETE', '/v0/users/me', { cookie, json: { password: user.password } });
    expectStatus(deleted, 204, `deletion of ${user.email}`);
  });
}
