import pg from 'pg';
import { waitFor } from '@latchkey/test-kit';
import { ApiClient } from '../support/api-client';
import { newAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';

/** docs/api.md, "Accounts": the worker deletes accounts never verified, here after an hour, looking every second. */
let stack: E2eStack;

beforeAll(async () => {
  stack = await startE2eStack('unverified', { AUTH_UNVERIFIED_ACCOUNT_TTL_HOURS: '1', JOBS_UNVERIFIED_PURGE_INTERVAL_SECONDS: '1' });
}, 60_000);

afterAll(async () => {
  await stack?.destroy();
});

describe('accounts never verified', () => {
  it('are deleted by the worker once old enough, freeing the address for its owner', async () => {
    const squatter = newAccount('squatter');
    const client = new ApiClient(stack.gatewayUrl);
    expect((await client.post('/v0/users', squatter)).status).toBe(201);
    const owner = { ...newAccount('owner'), email: squatter.email };
    expect((await client.post('/v0/users', owner)).body).toMatchObject({ code: 'user:email_taken' });

    // Registered two hours ago, as far as identity knows.
    const db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
    try {
      await db.query(`UPDATE identity.users SET created_at = now() - interval '2 hours' WHERE email = $1`, [squatter.email.toLowerCase()]);
    } finally {
      await db.end();
    }
    await waitFor(async () => ((await client.post('/v0/users', owner)).status === 201 ? true : undefined), {
      description: 'the address free again',
    });
  });
});
