import { waitFor } from '@latchkey/test-kit';
import { ApiClient } from '../support/api-client';
import { PASSWORD, signedInAccount } from '../support/accounts';
import { totpCode } from '../support/authenticator';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { totpSetupSchema } from '../../gateway/src/totp/totp-schemas';

/** docs/api.md, "Re-authentication", with a proof that grows stale after 2 seconds. */
let stack: E2eStack;

beforeAll(async () => {
  stack = await startE2eStack('reauth', { AUTH_REAUTH_MAX_AGE_SECONDS: '2' });
}, 60_000);

afterAll(async () => {
  await stack?.destroy();
});

type Account = Awaited<ReturnType<typeof signedInAccount>>;

/** Waits until the sign-in of `account` is older than the allowed age. */
async function letGrowStale(account: Account): Promise<void> {
  await waitFor(async () => ((await account.client.get('/v0/auth/oauth/google/authorize?purpose=link')).status === 403 ? true : undefined), {
    description: 'the sign-in to grow stale',
  });
}

describe('re-authentication', () => {
  it('asks a stale session to prove itself again before TOTP setup and enable, a provider link and an email change', async () => {
    const account = await signedInAccount(stack, 'stale');
    expect((await account.client.post('/v0/auth/totp/setup')).status).toBe(200);
    await letGrowStale(account);
    const privileged: [string, string, unknown][] = [
      ['POST', '/v0/auth/totp/setup', undefined],
      ['POST', '/v0/auth/totp/enable', { setup_token: 'x'.repeat(43), code: '123456' }],
      ['GET', '/v0/auth/oauth/google/authorize?purpose=link', undefined],
      ['POST', '/v0/auth/oauth/google/link', { code: 'a-code', state: 'a-state' }],
      ['POST', '/v0/auth/change-email', { current_password: PASSWORD, new_email: 'elsewhere@example.com' }],
    ];
    for (const [method, path, json] of privileged) {
      const answer = await account.client.request(method, path, json === undefined ? {} : { json });
      expect({ path, status: answer.status, code: answer.body?.code }).toEqual({ path, status: 403, code: 'auth:reauthentication_required' });
    }
    // Everything else still works with the session.
    expect((await account.client.get('/v0/users/me')).status).toBe(200);

    expect((await account.client.post('/v0/auth/reauthenticate', { password: 'not the password' })).body).toMatchObject({
      status: 400,
      code: 'auth:wrong_password',
    });
    expect((await account.client.post('/v0/auth/reauthenticate', { password: PASSWORD, code: '123456' })).body).toMatchObject({
      code: 'validation:invalid_input',
    });
    const proved = await account.client.post('/v0/auth/reauthenticate', { password: PASSWORD });
    expect(proved.status).toBe(200);
    expect(Math.abs(Date.parse(proved.body.reauthenticated_at as string) - Date.now())).toBeLessThan(60_000);
    expect((await account.client.post('/v0/auth/totp/setup')).status).toBe(200);
  });

  it('takes a TOTP code, or a backup code, from an account with TOTP on', async () => {
    const account = await signedInAccount(stack, 'stalecodes');
    const setup = totpSetupSchema.parse((await account.client.post('/v0/auth/totp/setup')).body);
    const enabled = await account.client.post('/v0/auth/totp/enable', { setup_token: setup.setup_token, code: totpCode(setup.secret, -1) });
    expect(enabled.status).toBe(200);
    const backupCodes = enabled.body.backup_codes as string[];
    await letGrowStale(account);
    const accepted = new Set([-1, 0, 1].map((offset) => totpCode(setup.secret, offset)));
    const wrong = ['000000', '111111', '222222', '333333'].find((candidate) => !accepted.has(candidate))!;
    expect((await account.client.post('/v0/auth/reauthenticate', { code: wrong })).body).toMatchObject({ code: 'totp:invalid_code' });
    expect((await account.client.post('/v0/auth/reauthenticate', { code: totpCode(setup.secret) })).status).toBe(200);
    expect((await account.client.get('/v0/auth/oauth/google/authorize?purpose=link')).status).not.toBe(403);
    await letGrowStale(account);
    expect((await account.client.post('/v0/auth/reauthenticate', { backup_code: backupCodes[0] })).status).toBe(200);
  });

  it('needs a session', async () => {
    expect((await new ApiClient(stack.gatewayUrl).post('/v0/auth/reauthenticate', { password: PASSWORD })).status).toBe(401);
  });
});
