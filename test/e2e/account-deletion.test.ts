import { randomUUID } from 'node:crypto';
import { connect } from 'nats';
import { jobSubjects } from '@latchkey/jobs-contract';
import { topology } from '@latchkey/job-streams';
import { waitFor } from '@latchkey/test-kit';
import { ApiClient, sessionSetCookie } from '../support/api-client';
import { noticeMail, PASSWORD, signedInAccount } from '../support/accounts';
import { totpCode } from '../support/authenticator';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { storedKeys } from '../support/object-store';
import { totpSetupSchema } from '../../gateway/src/totp/totp-schemas';

let stack: E2eStack;

beforeAll(async () => {
  stack = await startE2eStack('deletion');
}, 60_000);

afterAll(async () => {
  await stack?.destroy();
});

const anonymous = () => new ApiClient(stack.gatewayUrl);

async function writePosts(client: ApiClient, count: number, word: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const response = await client.post('/v0/posts', { title: `${word} ${i}`, content: `about ${word}` });
    expect(response.status).toBe(201);
    ids.push(response.body.id as string);
  }
  return ids;
}

describe('deleting an account', () => {
  it('asks for the password, and a TOTP or backup code when TOTP is on', async () => {
    const account = await signedInAccount(stack, 'proof');
    const setup = totpSetupSchema.parse((await account.client.post('/v0/auth/totp/setup')).body);
    const enabled = await account.client.post('/v0/auth/totp/enable', { setup_token: setup.setup_token, code: totpCode(setup.secret, -1) });
    const backupCodes = enabled.body.backup_codes as string[];

    const missing = await account.client.request('DELETE', '/v0/users/me');
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: 'validation:invalid_input' });
    expect((missing.body.errors as { field: string }[]).map((e) => e.field).sort()).toEqual(['code', 'password']);

    const wrongPassword = await account.client.request('DELETE', '/v0/users/me', { json: { password: 'not it at all', code: backupCodes[0] } });
    expect(wrongPassword.body).toMatchObject({ status: 400, code: 'auth:wrong_password' });
    const wrongCode = await account.client.request('DELETE', '/v0/users/me', { json: { password: PASSWORD, code: 'zzzzz-zzzzz' } });
    expect(wrongCode.body).toMatchObject({ status: 400, code: 'totp:invalid_code' });
    expect((await account.client.get('/v0/users/me')).status).toBe(200);

    const deleted = await account.client.request('DELETE', '/v0/users/me', { json: { password: PASSWORD, code: backupCodes[0] } });
    expect(deleted.status).toBe(204);
    expect(sessionSetCookie(deleted.headers)).toMatch(/^session_id=; Max-Age=0/);
  });

  it('counts wrong passwords like wrong logins and wrong codes like wrong TOTP codes', async () => {
    const account = await signedInAccount(stack, 'guessing');
    const remove = (json: Record<string, string>) => account.client.request('DELETE', '/v0/users/me', { json });
    for (let i = 0; i < 10; i += 1) expect((await remove({ password: 'a wrong guess' })).body).toMatchObject({ code: 'auth:wrong_password' });
    const limited = await remove({ password: PASSWORD });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ code: 'rate_limit:exceeded' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);

    const withTotp = await signedInAccount(stack, 'guessingcodes');
    const setup = totpSetupSchema.parse((await withTotp.client.post('/v0/auth/totp/setup')).body);
    expect((await withTotp.client.post('/v0/auth/totp/enable', { setup_token: setup.setup_token, code: totpCode(setup.secret, -1) })).status).toBe(200);
    const removeWith = (code: string) => withTotp.client.request('DELETE', '/v0/users/me', { json: { password: PASSWORD, code } });
    for (let i = 0; i < 10; i += 1) expect((await removeWith(`zzzzz-${String(i).padStart(5, '0')}`)).body).toMatchObject({ code: 'totp:invalid_code' });
    expect((await removeWith(totpCode(setup.secret))).status).toBe(429);
    expect((await account.client.get('/v0/users/me')).status).toBe(200);
    expect((await withTotp.client.get('/v0/users/me')).status).toBe(200);
  });

  it('removes the account, its sessions and its posts with their stored content and index entries', async () => {
    const account = await signedInAccount(stack, 'leaving');
    const other = new ApiClient(stack.gatewayUrl);
    await other.post('/v0/auth/login', { email: account.email, password: PASSWORD });
    const bystander = await signedInAccount(stack, 'staying');
    const leavingPosts = await writePosts(account.client, 3, 'zeppelin');
    const stayingPosts = await writePosts(bystander.client, 1, 'zeppelin');
    await waitFor(async () => {
      const found = (await anonymous().get('/v0/search/posts?q=zeppelin')).body.items as unknown[];
      return found.length >= 4 ? true : undefined;
    }, { description: 'the posts in search' });

    expect((await account.client.request('DELETE', '/v0/users/me', { json: { password: PASSWORD } })).status).toBe(204);

    expect((await other.get('/v0/users/me')).status).toBe(401);
    expect((await anonymous().post('/v0/auth/login', { email: account.email, password: PASSWORD })).body).toMatchObject({
      code: 'auth:invalid_credentials',
    });
    await waitFor(async () => {
      const responses = await Promise.all(leavingPosts.map((id) => anonymous().get(`/v0/posts/${id}`)));
      return responses.every((r) => r.status === 404) ? true : undefined;
    }, { description: 'the account’s posts to be deleted' });
    expect((await anonymous().get(`/v0/posts?author_id=${account.id}`)).body).toEqual({ items: [], next_cursor: null });
    await waitFor(async () => {
      const keys = await storedKeys(stack);
      return leavingPosts.every((id) => !keys.includes(`posts/${id}`)) ? keys : undefined;
    }, { description: 'the stored content of the account’s posts to be deleted' });
    expect(await storedKeys(stack)).toContain(`posts/${stayingPosts[0]}`);
    const found = ((await anonymous().get('/v0/search/posts?q=zeppelin')).body.items as { id: string }[]).map((item) => item.id);
    expect(found).toEqual(stayingPosts);
    await noticeMail(stack, account.email, /account and its posts were just deleted/);

    // The handle and the address are free again.
    expect((await anonymous().post('/v0/users', { handle: account.handle, email: account.email, password: PASSWORD })).status).toBe(201);
  });

  it('deletes nothing on a forged user.deleted for an account that exists', async () => {
    const account = await signedInAccount(stack, 'forged');
    const post = await account.client.post('/v0/posts', { title: 'still here', content: 'after a forged deletion' });
    expect(post.status).toBe(201);
    const refusals = async (): Promise<number> => {
      const text = await (await fetch(`${stack.operationsUrl('jobs')}/metrics`)).text();
      return Number(/jobs_processed_total\{[^}]*job_type="account_cleanup"[^}]*outcome="refused"[^}]*\} (\d+)/.exec(text)?.[1] ?? 0);
    };
    const before = await refusals();
    // Anyone with a place on the bus could publish this.
    const nats = await connect({ servers: stack.env.NATS_URL });
    try {
      const subject = topology(stack.env.NATS_SUBJECT_PREFIX!).subject(jobSubjects.userDeleted);
      await nats.jetstream().publish(subject, JSON.stringify({ user_id: account.id }), { msgID: randomUUID() });
    } finally {
      await nats.close();
    }
    await waitFor(async () => ((await refusals()) > before ? true : undefined), { description: 'the forged job refused' });
    expect((await account.client.get('/v0/users/me')).status).toBe(200);
    expect((await anonymous().get(`/v0/posts/${String(post.body.id)}`)).body).toMatchObject({ content: 'after a forged deletion' });
  });

  it('needs a session', async () => {
    expect((await anonymous().request('DELETE', '/v0/users/me', { json: { password: PASSWORD } })).status).toBe(401);
  });
});
