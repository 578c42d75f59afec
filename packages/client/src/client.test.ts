import Fastify, { type FastifyInstance } from 'fastify';
import { createLatchkeyClient, isProblem, type Problem, type User } from './index';

const user: User = {
  id: '0190a3c4-1d1e-7000-8000-000000000001',
  handle: 'ada',
  email: 'ada@example.com',
  email_verified: true,
  email_verified_at: '2026-01-01T00:00:00.000Z',
  has_password: true,
  totp_enabled: false,
  passkeys_count: 0,
  created_at: '2026-01-01T00:00:00.000Z',
};

const notFound: Problem = {
  type: 'about:blank',
  title: 'Not Found',
  status: 404,
  detail: 'No such post.',
  code: 'post:not_found',
};

/** What the server saw of each request: method, URL, the cookie it carried and its body. */
let seen: { method: string; url: string; cookie: string | undefined; body: unknown }[];
let server: FastifyInstance;
let baseUrl: string;

/** A stand-in for the gateway, answering as docs/api.md says it does: a cookie on login, problem+json on errors. */
beforeAll(async () => {
  server = Fastify();
  server.addHook('onRequest', async (request) => {
    seen.push({ method: request.method, url: request.url, cookie: request.headers.cookie, body: undefined });
  });
  server.addHook('preHandler', async (request) => {
    seen[seen.length - 1]!.body = request.body;
  });
  server.post('/v0/auth/login', async (_request, reply) =>
    reply.header('set-cookie', 'session_id=the-cookie; Path=/; HttpOnly; Secure; SameSite=Lax').send(user),
  );
  server.get('/v0/users/me', async (request, reply) =>
    request.headers.cookie === 'session_id=the-cookie'
      ? user
      : reply.code(401).type('application/problem+json').send({ ...notFound, title: 'Unauthorized', status: 401, code: 'auth:unauthorized' }),
  );
  server.get('/v0/posts/:id', async (_request, reply) => reply.code(404).type('application/problem+json').send(notFound));
  server.get('/v0/posts', async () => ({ items: [], next_cursor: null }));
  baseUrl = await server.listen({ port: 0, host: '127.0.0.1' });
});

beforeEach(() => {
  seen = [];
});

afterAll(async () => {
  await server.close();
});

test('a server-side client passes the session cookie in its headers and reads the new one from Set-Cookie', async () => {
  const anonymous = createLatchkeyClient(baseUrl);
  const login = await anonymous.POST('/v0/auth/login', { body: { email: 'ada@example.com', password: 'correct horse battery staple' } });
  expect(login.data).toEqual(user);
  const cookie = login.response.headers.getSetCookie()[0]!.split(';')[0]!;

  const signedIn = createLatchkeyClient(baseUrl, { headers: { cookie } });
  expect((await signedIn.GET('/v0/users/me')).data?.handle).toBe('ada');

  expect(seen.map(({ method, url, cookie: sent }) => ({ method, url, cookie: sent }))).toEqual([
    { method: 'POST', url: '/v0/auth/login', cookie: undefined },
    { method: 'GET', url: '/v0/users/me', cookie: 'session_id=the-cookie' },
  ]);
  expect(seen[0]!.body).toEqual({ email: 'ada@example.com', password: 'correct horse battery staple' });
});

test('an error answer comes back as the API problem, which isProblem recognises by its code', async () => {
  const api = createLatchkeyClient(baseUrl);
  const unauthorized = await api.GET('/v0/users/me');
  expect(unauthorized.response.status).toBe(401);
  expect(unauthorized.data).toBeUndefined();
  expect(isProblem(unauthorized.error)).toBe(true);
  expect(isProblem(unauthorized.error, 'auth:unauthorized')).toBe(true);
  expect(isProblem(unauthorized.error, 'post:not_found')).toBe(false);

  const post = await api.GET('/v0/posts/{id}', { params: { path: { id: 'a b/c' } } });
  expect(isProblem(post.error, 'post:not_found')).toBe(true);
  // A path parameter is encoded, so it cannot reach another route.
  expect(seen.at(-1)!.url).toBe('/v0/posts/a%20b%2Fc');
  expect(post.data).toBeUndefined();
});

test('query parameters are sent as the API names them', async () => {
  const api = createLatchkeyClient(baseUrl);
  const page = await api.GET('/v0/posts', { params: { query: { author_id: user.id, limit: 5 } } });
  expect(page.data).toEqual({ items: [], next_cursor: null });
  expect(seen.at(-1)!.url).toBe(`/v0/posts?author_id=${user.id}&limit=5`);
});

test('isProblem takes nothing but a problem: an API answer that is not one, or no answer', () => {
  expect(isProblem(notFound)).toBe(true);
  for (const value of [undefined, null, 'post:not_found', { code: 'post:not_found' }, { status: 404 }, { code: 404, status: 404 }]) {
    expect(isProblem(value)).toBe(false);
  }
});
