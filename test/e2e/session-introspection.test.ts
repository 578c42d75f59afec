import { sessionsV1 } from '@latchkey/contracts';
import { createTestServiceClient, type TestServiceClient } from '@latchkey/test-kit';
import { ApiClient } from '../support/api-client';
import { PASSWORD, signedInAccount } from '../support/accounts';
import { totpCode } from '../support/authenticator';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { totpSetupSchema } from '../../gateway/src/totp/totp-schemas';

/** sessions.v1 as a service beside Latchkey calls it (docs/integration.md, "Introspection"). */
let stack: E2eStack;
let sessions: TestServiceClient<typeof sessionsV1.SessionsServiceService>;

beforeAll(async () => {
  stack = await startE2eStack('introspect');
  sessions = createTestServiceClient(sessionsV1.SessionsServiceService, `127.0.0.1:${stack.processes.get('gateway')!.ports.GRPC_PORT}`);
}, 60_000);

afterAll(async () => {
  sessions?.close();
  await stack?.destroy();
});

describe('session introspection over gRPC', () => {
  it('resolves the cookie a client sent to its user and session, without counting as activity', async () => {
    const account = await signedInAccount(stack, 'introspected');
    const [listed] = (await account.client.get('/v0/auth/sessions')).body.items as { id: string; last_seen_at: string; expires_at: string }[];
    const answer = await sessions.introspectSession({ token: account.client.sessionCookie! });
    expect(answer).toEqual({
      active: true,
      session: {
        sessionId: listed!.id,
        userId: account.id,
        createdAt: expect.any(Date),
        authenticatedAt: expect.any(Date),
        expiresAt: new Date(listed!.expires_at),
        lastSeenAt: new Date(listed!.last_seen_at),
        authenticationMethods: ['pwd'],
        secondFactor: false,
      },
    });
    expect((await sessions.introspectSession({ token: account.client.sessionCookie! })).session?.expiresAt).toEqual(answer.session?.expiresAt);

    for (const token of ['', 'not-a-token', 'A'.repeat(43)]) expect(await sessions.introspectSession({ token })).toEqual({ active: false });
  });

  it('says when a second factor was used', async () => {
    const account = await signedInAccount(stack, 'twofactor');
    const setup = totpSetupSchema.parse((await account.client.post('/v0/auth/totp/setup')).body);
    expect((await account.client.post('/v0/auth/totp/enable', { setup_token: setup.setup_token, code: totpCode(setup.secret, -1) })).status).toBe(200);
    const client = new ApiClient(stack.gatewayUrl);
    const challenge = await client.post('/v0/auth/login', { email: account.email, password: PASSWORD });
    expect((await client.post('/v0/auth/totp/verify', { temp_token: challenge.body.temp_token, code: totpCode(setup.secret) })).status).toBe(200);
    const { session } = await sessions.introspectSession({ token: client.sessionCookie! });
    expect(session).toMatchObject({ authenticationMethods: ['pwd', 'otp', 'mfa'], secondFactor: true });
  });

  it('lists and ends a user’s sessions: the cookie stops working at once', async () => {
    const account = await signedInAccount(stack, 'revoked');
    const other = new ApiClient(stack.gatewayUrl);
    expect((await other.post('/v0/auth/login', { email: account.email, password: PASSWORD })).status).toBe(200);
    const { sessions: listed } = await sessions.listSessions({ userId: account.id });
    expect(listed).toHaveLength(2);

    const { session: mine } = await sessions.introspectSession({ token: account.client.sessionCookie! });
    await sessions.revokeSession({ userId: account.id, sessionId: mine!.sessionId });
    expect((await account.client.get('/v0/users/me')).status).toBe(401);
    expect((await other.get('/v0/users/me')).status).toBe(200);
    await expect(sessions.revokeSession({ userId: account.id, sessionId: mine!.sessionId })).rejects.toMatchObject({ code: 'session:not_found' });
    // A session id reaches nothing under another user.
    const stranger = await signedInAccount(stack, 'stranger');
    const { session: theirs } = await sessions.introspectSession({ token: stranger.client.sessionCookie! });
    await expect(sessions.revokeSession({ userId: account.id, sessionId: theirs!.sessionId })).rejects.toMatchObject({ code: 'session:not_found' });
    expect((await stranger.client.get('/v0/users/me')).status).toBe(200);

    expect(await sessions.revokeAllSessions({ userId: account.id })).toEqual({ revoked: 1 });
    expect((await other.get('/v0/users/me')).status).toBe(401);
    expect(await sessions.listSessions({ userId: account.id })).toEqual({ sessions: [] });
  });

  it('answers a caller error for input that is not an id', async () => {
    await expect(sessions.listSessions({ userId: 'someone' })).rejects.toMatchObject({ code: 'validation:invalid_input' });
    await expect(sessions.revokeSession({ userId: '00000000-0000-4000-8000-000000000000', sessionId: 'x' })).rejects.toMatchObject({
      code: 'validation:invalid_input',
    });
  });
});
