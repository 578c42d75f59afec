import { identityV1 } from '@latchkey/contracts';
import { createTestServiceClient, waitFor } from '@latchkey/test-kit';
import { ApiClient } from '../support/api-client';
import { PASSWORD, signedInAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';

/**
 * docs/architecture.md, "Sessions": a password change ends the sessions of
 * the old password even when the gateway never gets to end them.
 */
let stack: E2eStack;

beforeAll(async () => {
  stack = await startE2eStack('revocation');
}, 60_000);

afterAll(async () => {
  await stack?.destroy();
});

describe('durable session revocation', () => {
  it('ends the old sessions after a committed password change that the gateway did not follow up', async () => {
    const account = await signedInAccount(stack, 'revoked');
    const elsewhere = new ApiClient(stack.gatewayUrl);
    expect((await elsewhere.post('/v0/auth/login', { email: account.email, password: PASSWORD })).status).toBe(200);

    // The change commits in identity, as if the gateway had died (or lost Redis) right after: it ends nothing itself.
    const identity = createTestServiceClient(
      identityV1.IdentityServiceService,
      `127.0.0.1:${String(stack.processes.get('identity')!.ports.GRPC_PORT)}`,
    );
    const newPassword = 'a different passphrase';
    try {
      const { sessionEpoch } = await identity.changePassword({ userId: account.id, currentPassword: PASSWORD, newPassword });
      expect(sessionEpoch).toBe(1);
    } finally {
      identity.close();
    }

    // A sign-in with the new password, made after the change, is not touched by its revocation.
    const afterwards = new ApiClient(stack.gatewayUrl);
    expect((await afterwards.post('/v0/auth/login', { email: account.email, password: newPassword })).status).toBe(200);
    await waitFor(async () => {
      const answers = await Promise.all([account.client.get('/v0/users/me'), elsewhere.get('/v0/users/me')]);
      return answers.every((answer) => answer.status === 401) ? true : undefined;
    }, { description: 'the sessions of the old password ended by the worker' });
    expect((await afterwards.get('/v0/users/me')).status).toBe(200);
  });

  it('keeps the session a password change through the API starts, once the revocation job has run', async () => {
    const revocationsDone = async (): Promise<number> => {
      const text = await (await fetch(`${stack.operationsUrl('jobs')}/metrics`)).text();
      return Number(/jobs_processed_total\{[^}]*job_type="session_revocation"[^}]*outcome="completed"[^}]*\} (\d+)/.exec(text)?.[1] ?? 0);
    };
    const before = await revocationsDone();
    const account = await signedInAccount(stack, 'changer');
    const elsewhere = new ApiClient(stack.gatewayUrl);
    expect((await elsewhere.post('/v0/auth/login', { email: account.email, password: PASSWORD })).status).toBe(200);
    expect((await account.client.post('/v0/auth/change-password', { current_password: PASSWORD, new_password: 'another passphrase' })).status).toBe(204);
    expect((await elsewhere.get('/v0/users/me')).status).toBe(401);
    // The job of the change runs after the answer; the new session carries the new epoch and stays.
    await waitFor(async () => ((await revocationsDone()) > before ? true : undefined), { description: 'the revocation job done' });
    expect((await account.client.get('/v0/users/me')).status).toBe(200);
  });
});
