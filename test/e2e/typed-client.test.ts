import { createLatchkeyClient, isProblem, type LatchkeyClient } from '@latchkey/client';
import { mailedToken, newAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';

let stack: E2eStack;

beforeAll(async () => {
  stack = await startE2eStack('typedclient');
}, 60_000);

afterAll(async () => {
  await stack?.destroy();
});

/**
 * A server-side application using packages/client, as its README shows:
 * it keeps the session cookie the gateway sets and sends it back.
 */
function clientWithCookies(): LatchkeyClient {
  let cookie: string | undefined;
  return createLatchkeyClient(stack.gatewayUrl, {
    fetch: async (request: Request) => {
      if (cookie) request.headers.set('cookie', cookie);
      const response = await fetch(request);
      const session = response.headers.getSetCookie().find((line) => line.startsWith('session_id='));
      if (session) cookie = session.split(';')[0];
      return response;
    },
  });
}

it('registers, signs in and writes a post with typed requests and answers', async () => {
  const client = clientWithCookies();
  const account = newAccount('typed');
  const registered = await client.POST('/v0/users', { body: account });
  expect(registered.response.status).toBe(201);
  expect(registered.data?.email_verified).toBe(false);
  const token = await mailedToken(stack, account.email, 'verify-email');
  expect((await client.POST('/v0/auth/verify-email', { body: { token } })).data?.email_verified).toBe(true);

  const login = await client.POST('/v0/auth/login', { body: { email: account.email, password: account.password } });
  expect(login.data && 'handle' in login.data ? login.data.handle : undefined).toBe(account.handle.toLowerCase());
  const written = await client.POST('/v0/posts', { body: { title: 'Typed', content: 'From @latchkey/client.' } });
  expect(written.response.status).toBe(201);
  const read = await client.GET('/v0/posts/{id}', { params: { path: { id: written.data!.id } } });
  expect(read.data).toMatchObject({ title: 'Typed', author: { handle: account.handle.toLowerCase() } });
});

it('answers that no provider is configured where none is', async () => {
  expect((await clientWithCookies().GET('/v0/auth/oauth/providers')).data).toEqual({ items: [] });
});

it('hands errors over as the API’s problems, codes typed', async () => {
  const client = clientWithCookies();
  const { error, response } = await client.GET('/v0/users/me');
  expect(response.status).toBe(401);
  expect(isProblem(error, 'auth:unauthorized')).toBe(true);
  const invalid = await client.POST('/v0/users', { body: { handle: 'x', email: 'not-an-email', password: 'short' } });
  expect(isProblem(invalid.error, 'validation:invalid_input')).toBe(true);
  expect([...new Set(invalid.error?.errors?.map((field) => field.field))].sort()).toEqual(['email', 'handle', 'password']);
});
