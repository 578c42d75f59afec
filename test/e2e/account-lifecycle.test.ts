import { ApiClient, sessionSetCookie } from '../support/api-client';
import { countMails, mailedToken, newAccount, noticeMail, PASSWORD, signedInAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { userSchema } from '../../gateway/src/account-view/user-schema';
import { sessionListSchema } from '../../gateway/src/sessions/session-schemas';

let stack: E2eStack;
const secrets: string[] = [];

beforeAll(async () => {
  stack = await startE2eStack('lifecycle');
}, 60_000);

afterAll(async () => {
  await stack?.destroy();
});

function remember<T extends string | undefined>(secret: T): T {
  if (secret) secrets.push(secret);
  return secret;
}

describe('registration, verification and login', () => {
  it('registers without a session, mails a verification link, and logs in only once verified', async () => {
    const client = new ApiClient(stack.gatewayUrl);
    const account = newAccount('Reg');
    const registered = await client.post('/v0/users', { ...account, handle: account.handle.toUpperCase(), email: ` ${account.email.toUpperCase()} ` });
    expect(registered.status).toBe(201);
    expect(userSchema.parse(registered.body)).toMatchObject({
      handle: account.handle.toLowerCase(),
      email: account.email.toLowerCase(),
      email_verified: false,
      email_verified_at: null,
      has_password: true,
      totp_enabled: false,
    });
    expect(sessionSetCookie(registered.headers)).toBeUndefined();

    const early = await client.post('/v0/auth/login', { email: account.email, password: PASSWORD });
    expect(early.status).toBe(403);
    expect(early.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(early.body).toMatchObject({ status: 403, code: 'auth:email_not_verified' });

    const token = remember(await mailedToken(stack, account.email, 'verify-email'));
    const verified = await client.post('/v0/auth/verify-email', { token });
    expect(verified.status).toBe(200);
    expect(userSchema.parse(verified.body)).toMatchObject({ email_verified: true });
    expect((await client.post('/v0/auth/verify-email', { token })).body).toMatchObject({ code: 'auth:token_invalid' });

    const login = await client.post('/v0/auth/login', { email: account.email, password: PASSWORD });
    expect(login.status).toBe(200);
    expect(userSchema.parse(login.body).id).toBe(registered.body.id);
    const cookie = sessionSetCookie(login.headers);
    expect(cookie).toMatch(/^session_id=[A-Za-z0-9_-]{43}; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/);
    remember(client.sessionCookie);

    const me = await client.get('/v0/users/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: registered.body.id, email_verified: true });
  });

  it('registers and moves only to addresses that can receive mail', async () => {
    const client = new ApiClient(stack.gatewayUrl);
    const longLocalPart = await client.post('/v0/users', { handle: 'longlocal', email: `${'a'.repeat(65)}@example.com`, password: PASSWORD });
    expect(longLocalPart.body).toMatchObject({ status: 400, code: 'validation:invalid_input', errors: [{ field: 'email' }] });
    const noHostName = await client.post('/v0/users', { handle: 'nohost', email: `ann@${'d'.repeat(64)}.com`, password: PASSWORD });
    expect(noHostName.body).toMatchObject({ status: 400, code: 'validation:invalid_input', errors: [{ field: 'email' }] });
    const account = await signedInAccount(stack, 'mailable');
    const change = await account.client.post('/v0/auth/change-email', { current_password: PASSWORD, new_email: 'ann@example-.com' });
    expect(change.body).toMatchObject({ status: 400, code: 'validation:invalid_input', errors: [{ field: 'new_email' }] });
  });

  it('answers a wrong password and an unknown email alike', async () => {
    const { email } = await signedInAccount(stack, 'alike');
    const client = new ApiClient(stack.gatewayUrl);
    const wrong = await client.post('/v0/auth/login', { email, password: 'not the password' });
    const unknown = await client.post('/v0/auth/login', { email: 'nobody-here@example.com', password: 'not the password' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body).toMatchObject({ code: 'auth:invalid_credentials' });
  });

  it('resends the verification mail with a session or for an email, always 202', async () => {
    const client = new ApiClient(stack.gatewayUrl);
    const account = newAccount('resend');
    await client.post('/v0/users', account);
    await mailedToken(stack, account.email, 'verify-email');
    const before = countMails(stack, account.email, 'verify-email');
    const byEmail = await client.post('/v0/auth/resend-verification-email', { email: account.email });
    expect(byEmail.status).toBe(202);
    expect(byEmail.text).toBe('');
    const newest = await mailedToken(stack, account.email, 'verify-email', before);
    expect((await client.post('/v0/auth/resend-verification-email', { email: 'ghost@example.com' })).status).toBe(202);
    expect((await client.post('/v0/auth/verify-email', { token: newest })).status).toBe(200);

    const signedIn = await signedInAccount(stack, 'resend2');
    expect((await signedIn.client.post('/v0/auth/resend-verification-email')).status).toBe(202);
    expect((await new ApiClient(stack.gatewayUrl).post('/v0/auth/resend-verification-email', {})).body).toMatchObject({
      code: 'validation:invalid_input',
      errors: [{ field: 'email', message: 'is required without a session' }],
    });
  });
});

describe('sessions', () => {
  it('lists the caller’s sessions and ends one by its public id', async () => {
    const account = await signedInAccount(stack, 'sessions');
    const phone = new ApiClient(stack.gatewayUrl, { 'user-agent': 'phone-app/1.0' });
    expect((await phone.post('/v0/auth/login', { email: account.email, password: PASSWORD })).status).toBe(200);

    const listed = await account.client.get('/v0/auth/sessions');
    expect(listed.status).toBe(200);
    const { items } = sessionListSchema.parse(listed.body);
    expect(items).toHaveLength(2);
    expect(items.filter((s) => s.current)).toHaveLength(1);
    const other = items.find((s) => !s.current)!;
    expect(other.user_agent).toBe('phone-app/1.0');
    expect(other.ip).toBe('127.0.0.1');
    // Public ids are never the cookie value.
    expect(items.map((s) => s.id)).not.toContain(account.client.sessionCookie);
    expect(items.map((s) => s.id)).not.toContain(phone.sessionCookie);

    const stranger = await signedInAccount(stack, 'stranger');
    expect((await stranger.client.delete(`/v0/auth/sessions/${other.id}`)).body).toMatchObject({
      status: 404,
      code: 'session:not_found',
    });

    expect((await account.client.delete(`/v0/auth/sessions/${other.id}`)).status).toBe(204);
    expect((await phone.get('/v0/users/me')).status).toBe(401);
    expect((await account.client.get('/v0/users/me')).status).toBe(200);
    expect((await account.client.delete(`/v0/auth/sessions/${other.id}`)).status).toBe(404);
  });

  it('logs out: the session is deleted server-side and the cookie cleared', async () => {
    const account = await signedInAccount(stack, 'logout');
    const stolen = account.client.sessionCookie;
    const logout = await account.client.post('/v0/auth/logout');
    expect(logout.status).toBe(204);
    expect(sessionSetCookie(logout.headers)).toMatch(/^session_id=; Max-Age=0;/);
    const replay = new ApiClient(stack.gatewayUrl);
    replay.sessionCookie = stolen;
    const me = await replay.get('/v0/users/me');
    expect(me.status).toBe(401);
    expect(me.body).toMatchObject({ code: 'auth:unauthorized' });
    expect(sessionSetCookie(me.headers)).toMatch(/^session_id=; Max-Age=0;/);
  });
});

describe('password reset', () => {
  it('resets with the mailed token once and ends every session', async () => {
    const account = await signedInAccount(stack, 'reset');
    const other = new ApiClient(stack.gatewayUrl);
    await other.post('/v0/auth/login', { email: account.email, password: PASSWORD });

    const anonymous = new ApiClient(stack.gatewayUrl);
    const asked = await anonymous.post('/v0/auth/forgot-password', { email: account.email.toUpperCase() });
    expect(asked.status).toBe(202);
    expect((await anonymous.post('/v0/auth/forgot-password', { email: 'nobody@example.com' })).status).toBe(202);
    const token = remember(await mailedToken(stack, account.email, 'reset-password'));

    const weak = await anonymous.post('/v0/auth/reset-password', { token, new_password: 'short' });
    expect(weak.body).toMatchObject({ code: 'validation:invalid_input', errors: [{ field: 'new_password' }] });
    const reset = await anonymous.post('/v0/auth/reset-password', { token, new_password: 'a whole new password' });
    expect(reset.status).toBe(204);
    expect((await anonymous.post('/v0/auth/reset-password', { token, new_password: 'yet another password' })).body).toMatchObject({
      code: 'auth:token_invalid',
    });

    expect((await account.client.get('/v0/users/me')).status).toBe(401);
    expect((await other.get('/v0/users/me')).status).toBe(401);
    expect((await anonymous.post('/v0/auth/login', { email: account.email, password: PASSWORD })).status).toBe(401);
    expect((await anonymous.post('/v0/auth/login', { email: account.email, password: 'a whole new password' })).status).toBe(200);
    await noticeMail(stack, account.email, /password of your account was just reset/);
  });
});

describe('password change', () => {
  it('needs the current password, ends other sessions and gives this one a new cookie', async () => {
    const account = await signedInAccount(stack, 'change');
    const other = new ApiClient(stack.gatewayUrl);
    await other.post('/v0/auth/login', { email: account.email, password: PASSWORD });
    const oldCookie = account.client.sessionCookie;

    const wrong = await account.client.post('/v0/auth/change-password', {
      current_password: 'not my password',
      new_password: 'the next password',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ code: 'auth:wrong_password' });

    const changed = await account.client.post('/v0/auth/change-password', {
      current_password: PASSWORD,
      new_password: 'the next password',
    });
    expect(changed.status).toBe(204);
    expect(account.client.sessionCookie).toBeDefined();
    expect(account.client.sessionCookie).not.toBe(oldCookie);
    expect((await account.client.get('/v0/users/me')).status).toBe(200);
    expect((await other.get('/v0/users/me')).status).toBe(401);
    const stale = new ApiClient(stack.gatewayUrl);
    stale.sessionCookie = oldCookie;
    expect((await stale.get('/v0/users/me')).status).toBe(401);
    await noticeMail(stack, account.email, /password of your account was just changed/);
  });

  it('needs a session', async () => {
    const response = await new ApiClient(stack.gatewayUrl).post('/v0/auth/change-password', {
      current_password: PASSWORD,
      new_password: 'the next password',
    });
    expect(response.status).toBe(401);
  });
});

describe('email change', () => {
  it('confirms through the new address and tells the old one', async () => {
    const account = await signedInAccount(stack, 'move');
    const newEmail = `moved.${account.handle}@example.org`;
    const taken = await signedInAccount(stack, 'taken');
    expect(
      (await account.client.post('/v0/auth/change-email', { current_password: PASSWORD, new_email: taken.email })).body,
    ).toMatchObject({ status: 409, code: 'user:email_taken' });
    expect(
      (await account.client.post('/v0/auth/change-email', { current_password: 'wrong one!', new_email: newEmail })).body,
    ).toMatchObject({ code: 'auth:wrong_password' });

    const requested = await account.client.post('/v0/auth/change-email', { current_password: PASSWORD, new_email: newEmail });
    expect(requested.status).toBe(202);
    expect((await account.client.get('/v0/users/me')).body).toMatchObject({ email: account.email });
    const token = remember(await mailedToken(stack, newEmail, 'confirm-email-change'));

    const elsewhere = new ApiClient(stack.gatewayUrl);
    expect((await elsewhere.post('/v0/auth/login', { email: account.email, password: PASSWORD })).status).toBe(200);

    // Confirmed from the signed-in browser: that session stays, every other one ends.
    const confirmed = await account.client.post('/v0/auth/confirm-email-change', { token });
    expect(confirmed.status).toBe(200);
    expect(userSchema.parse(confirmed.body)).toMatchObject({ email: newEmail, email_verified: true });
    expect((await account.client.get('/v0/users/me')).body).toMatchObject({ email: newEmail });
    expect((await elsewhere.get('/v0/users/me')).status).toBe(401);
    const notice = await noticeMail(stack, account.email, /email address of your account was just changed/);
    expect(notice.text).toContain(newEmail);
    expect(notice.text).toContain('your other sessions were signed out');
    expect((await new ApiClient(stack.gatewayUrl).post('/v0/auth/confirm-email-change', { token })).body).toMatchObject({
      code: 'auth:token_invalid',
    });
  });
});

describe('secrets', () => {
  it('never writes passwords, tokens or session cookies to any log', () => {
    const output = stack.allOutput();
    expect(output.length).toBeGreaterThan(0);
    expect(output).not.toContain(PASSWORD);
    for (const secret of secrets) expect(output).not.toContain(secret);
  });
});
