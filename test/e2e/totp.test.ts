import { ApiClient, sessionSetCookie } from '../support/api-client';
import { noticeMail, PASSWORD, signedInAccount } from '../support/accounts';
import { readQrCode, totpCode } from '../support/authenticator';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { waitFor } from '@latchkey/test-kit';
import { userSchema } from '../../gateway/src/account-view/user-schema';
import { backupCodesSchema, totpSetupSchema, totpStatusSchema } from '../../gateway/src/totp/totp-schemas';

const TEMP_TOKEN_TTL_SECONDS = 4;
let stack: E2eStack;

beforeAll(async () => {
  stack = await startE2eStack('totp', { TOTP_ISSUER: 'Latchkey E2E', TOTP_TEMP_TOKEN_TTL_SECONDS: String(TEMP_TOKEN_TTL_SECONDS) });
}, 60_000);

afterAll(async () => {
  await stack?.destroy();
});

/**
 * An account with TOTP on. Enabling spends the code of the previous time
 * step, so the current and the next step are left for the test: an accepted
 * step is never accepted again.
 */
async function accountWithTotp(label: string) {
  const account = await signedInAccount(stack, label);
  const setup = totpSetupSchema.parse((await account.client.post('/v0/auth/totp/setup')).body);
  const enabled = await account.client.post('/v0/auth/totp/enable', { setup_token: setup.setup_token, code: totpCode(setup.secret, -1) });
  expect(enabled.status).toBe(200);
  const { backup_codes } = backupCodesSchema.parse(enabled.body);
  return { ...account, secret: setup.secret, backupCodes: backup_codes };
}

describe('turning TOTP on', () => {
  it('signs out every other session, keeps this one, and says so', async () => {
    const account = await signedInAccount(stack, 'totpothers');
    const elsewhere = new ApiClient(stack.gatewayUrl);
    expect((await elsewhere.post('/v0/auth/login', { email: account.email, password: PASSWORD })).status).toBe(200);
    const setup = totpSetupSchema.parse((await account.client.post('/v0/auth/totp/setup')).body);
    expect((await account.client.post('/v0/auth/totp/enable', { setup_token: setup.setup_token, code: totpCode(setup.secret, -1) })).status).toBe(200);
    expect((await elsewhere.get('/v0/users/me')).status).toBe(401);
    expect((await account.client.get('/v0/users/me')).body).toMatchObject({ totp_enabled: true });
    await noticeMail(stack, account.email, /Two-factor authentication was just turned on[\s\S]*other sessions were signed out/);
  });
});

async function challenge(email: string): Promise<string> {
  const login = await new ApiClient(stack.gatewayUrl).post('/v0/auth/login', { email, password: PASSWORD });
  expect(login.status).toBe(200);
  expect(login.body).toEqual({ totp_required: true, temp_token: expect.any(String) });
  expect(sessionSetCookie(login.headers)).toBeUndefined();
  return login.body.temp_token as string;
}

/** A well-formed code that is none of the codes accepted around now. */
function wrongCode(secret: string): string {
  const accepted = new Set([-1, 0, 1].map((offset) => totpCode(secret, offset)));
  return ['000000', '111111', '222222', '333333'].find((code) => !accepted.has(code))!;
}

const verify = (body: Record<string, unknown>) => new ApiClient(stack.gatewayUrl).post('/v0/auth/totp/verify', body);

describe('enabling TOTP', () => {
  it('gives a secret an authenticator app can scan and a code from it turns TOTP on', async () => {
    const account = await signedInAccount(stack, 'enable');
    const response = await account.client.post('/v0/auth/totp/setup');
    expect(response.status).toBe(200);
    const setup = totpSetupSchema.parse(response.body);
    expect(setup.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(readQrCode(setup.qr_code)).toBe(setup.otpauth_uri);
    const uri = new URL(setup.otpauth_uri);
    expect(`${uri.protocol}//${uri.host}`).toBe('otpauth://totp');
    expect(decodeURIComponent(uri.pathname)).toBe(`/Latchkey E2E:${account.email}`);
    expect(uri.searchParams.get('secret')).toBe(setup.secret);
    expect(uri.searchParams.get('issuer')).toBe('Latchkey E2E');

    expect((await account.client.post('/v0/auth/totp/enable', { setup_token: setup.setup_token, code: wrongCode(setup.secret) })).body).toMatchObject({
      code: 'totp:invalid_code',
    });
    expect((await account.client.post('/v0/auth/totp/enable', { setup_token: 'not-a-token', code: totpCode(setup.secret) })).body).toMatchObject({
      status: 400,
      code: 'totp:setup_token_invalid',
    });
    const enabled = await account.client.post('/v0/auth/totp/enable', { setup_token: setup.setup_token, code: totpCode(setup.secret) });
    expect(enabled.status).toBe(200);
    const { backup_codes } = backupCodesSchema.parse(enabled.body);
    expect(new Set(backup_codes).size).toBe(10);
    for (const code of backup_codes) expect(code).toMatch(/^[a-z0-9]{5}-[a-z0-9]{5}$/);

    const status = totpStatusSchema.parse((await account.client.get('/v0/auth/totp/status')).body);
    expect(status).toMatchObject({ enabled: true, backup_codes_remaining: 10 });
    expect(status.enabled_at).not.toBeNull();
    expect(userSchema.parse((await account.client.get('/v0/users/me')).body).totp_enabled).toBe(true);
    await noticeMail(stack, account.email, /Two-factor authentication was just turned on/);

    expect((await account.client.post('/v0/auth/totp/setup')).body).toMatchObject({ status: 409, code: 'totp:already_enabled' });
    // Secrets and codes never reach a log.
    expect(stack.allOutput()).not.toContain(setup.secret);
    expect(stack.allOutput()).not.toContain(backup_codes[0]);
  });

  it('refuses TOTP operations while it is off', async () => {
    const account = await signedInAccount(stack, 'off');
    expect((await account.client.get('/v0/auth/totp/status')).body).toEqual({ enabled: false, enabled_at: null, backup_codes_remaining: 0 });
    expect((await account.client.post('/v0/auth/totp/disable', { code: '123456' })).body).toMatchObject({ status: 400, code: 'totp:not_enabled' });
    expect((await account.client.post('/v0/auth/totp/backup-codes/regenerate', { code: '123456' })).body).toMatchObject({ code: 'totp:not_enabled' });
    expect((await new ApiClient(stack.gatewayUrl).post('/v0/auth/totp/setup')).status).toBe(401);
  });
});

describe('signing in with TOTP on', () => {
  it('answers a challenge instead of a session, and a code finishes the sign-in once', async () => {
    const account = await accountWithTotp('login');
    const tempToken = await challenge(account.email);
    const code = totpCode(account.secret);
    const verified = await verify({ temp_token: tempToken, code });
    expect(verified.status).toBe(200);
    expect(userSchema.parse(verified.body)).toMatchObject({ id: account.id, totp_enabled: true });
    const cookie = sessionSetCookie(verified.headers);
    expect(cookie).toMatch(/^session_id=[A-Za-z0-9_-]{43};/);

    // The token is used up, and the same code (time step) is never accepted again.
    expect((await verify({ temp_token: tempToken, code })).body).toMatchObject({ code: 'totp:temp_token_invalid' });
    expect((await verify({ temp_token: await challenge(account.email), code })).body).toMatchObject({ code: 'totp:invalid_code' });
  });

  it('accepts each backup code once, and exactly one of five concurrent uses', async () => {
    const account = await accountWithTotp('backup');
    const [first, second] = account.backupCodes;
    const used = await verify({ temp_token: await challenge(account.email), backup_code: first!.toUpperCase().replace('-', '') });
    expect(used.status).toBe(200);
    expect((await verify({ temp_token: await challenge(account.email), backup_code: first })).body).toMatchObject({ code: 'totp:invalid_code' });

    const tokens = await Promise.all(Array.from({ length: 5 }, () => challenge(account.email)));
    const results = await Promise.all(tokens.map((token) => verify({ temp_token: token, backup_code: second })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400]);
    expect((await account.client.get('/v0/auth/totp/status')).body).toMatchObject({ backup_codes_remaining: 8 });
  });

  it('says when all backup codes are used up', async () => {
    const account = await accountWithTotp('exhaust');
    for (const code of account.backupCodes) {
      expect((await verify({ temp_token: await challenge(account.email), backup_code: code })).status).toBe(200);
    }
    const exhausted = await verify({ temp_token: await challenge(account.email), backup_code: 'abcde-12345' });
    expect(exhausted.status).toBe(401);
    expect(exhausted.body).toMatchObject({ code: 'totp:backup_code_exhausted' });
  });

  it('kills a temporary token after 5 wrong codes, then limits wrong codes per account', async () => {
    const account = await accountWithTotp('wrong');
    const wrong = wrongCode(account.secret);
    const tempToken = await challenge(account.email);
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      expect((await verify({ temp_token: tempToken, code: wrong })).body).toMatchObject({ code: 'totp:invalid_code' });
    }
    expect((await verify({ temp_token: tempToken, code: totpCode(account.secret) })).body).toMatchObject({ code: 'totp:temp_token_invalid' });

    const another = await challenge(account.email);
    for (let attempt = 1; attempt <= 5; attempt += 1) await verify({ temp_token: another, code: wrong });
    const limited = await verify({ temp_token: await challenge(account.email), code: wrong });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ code: 'rate_limit:exceeded' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('tells an expired temporary token from an unknown one', async () => {
    const account = await accountWithTotp('expiry');
    const tempToken = await challenge(account.email);
    const expiresAt = Date.now() + TEMP_TOKEN_TTL_SECONDS * 1000;
    expect((await verify({ temp_token: 'no-such-token', code: totpCode(account.secret) })).body).toMatchObject({
      status: 400,
      code: 'totp:temp_token_invalid',
    });
    // The lifetime has to pass; probing the token meanwhile would spend its attempts.
    await waitFor(() => (Date.now() > expiresAt + 250 ? true : undefined), {
      timeoutMs: (TEMP_TOKEN_TTL_SECONDS + 2) * 1000,
      description: 'the temporary token lifetime to pass',
    });
    const expired = await verify({ temp_token: tempToken, code: totpCode(account.secret) });
    expect(expired.status).toBe(400);
    expect(expired.body).toMatchObject({ code: 'totp:temp_token_expired' });
  });

  it('validates the verify body', async () => {
    expect((await verify({ temp_token: 'x' })).body).toMatchObject({ code: 'validation:invalid_input' });
    expect((await verify({ temp_token: 'x', code: '123456', backup_code: 'abcde-12345' })).body).toMatchObject({ code: 'validation:invalid_input' });
    expect((await verify({ temp_token: 'x', code: '12345' })).body).toMatchObject({ code: 'validation:invalid_input', errors: [{ field: 'code' }] });
  });
});

describe('managing TOTP', () => {
  it('regenerates backup codes with a code, ending the old ones', async () => {
    const account = await accountWithTotp('regen');
    const regenerated = await account.client.post('/v0/auth/totp/backup-codes/regenerate', { code: totpCode(account.secret) });
    expect(regenerated.status).toBe(200);
    const fresh = backupCodesSchema.parse(regenerated.body).backup_codes;
    expect(fresh).not.toContain(account.backupCodes[0]);
    expect((await verify({ temp_token: await challenge(account.email), backup_code: account.backupCodes[0] })).body).toMatchObject({
      code: 'totp:invalid_code',
    });
    expect((await verify({ temp_token: await challenge(account.email), backup_code: fresh[0] })).status).toBe(200);
    await noticeMail(stack, account.email, /New two-factor backup codes were just generated/);
  });

  it('turns TOTP off with a current code; sign-in then needs the password only', async () => {
    const account = await accountWithTotp('disable');
    expect((await account.client.post('/v0/auth/totp/disable', { code: '12345a' })).status).toBe(400);
    const disabled = await account.client.post('/v0/auth/totp/disable', { code: totpCode(account.secret) });
    expect(disabled.status).toBe(204);
    expect((await account.client.get('/v0/auth/totp/status')).body).toMatchObject({ enabled: false });
    const login = await new ApiClient(stack.gatewayUrl).post('/v0/auth/login', { email: account.email, password: PASSWORD });
    expect(userSchema.parse(login.body).totp_enabled).toBe(false);
    expect(sessionSetCookie(login.headers)).toBeDefined();
    await noticeMail(stack, account.email, /Two-factor authentication was just turned off/);
  });
});
