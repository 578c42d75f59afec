import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { adminV1 } from '@latchkey/contracts';
import { createTestServiceClient, SoftwareAuthenticator, type CreationOptionsJson, type RequestOptionsJson } from '@latchkey/test-kit';
import { ApiClient } from '../support/api-client';
import { countMails, mailedToken, signedInAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { followAuthorization } from '../../services/oauth/test/provider-fixtures';
import { providerEnvironment, startGitHubFixture, startGoogleFixture, type GitHubFixture, type GoogleFixture } from '../support/oauth-providers';

/**
 * docs/audit.md through the gateway: an organisation's audit log, listed
 * with filters and pages and exported as NDJSON that the documented
 * checker verifies; audit:read and tenant isolation; no route changes an
 * entry; an export of many entries streams in flat memory in the gateway
 * and in identity.
 */
let stack: E2eStack;
let google: GoogleFixture;
let github: GitHubFixture;
let identityDb: pg.Client;
const UNLIMITED = '100000';
const root = path.resolve(__dirname, '../..');

beforeAll(async () => {
  [google, github] = await Promise.all([startGoogleFixture(), startGitHubFixture()]);
  stack = await startE2eStack('orgaudit', {
    RATE_LIMIT_IP_MAX: UNLIMITED,
    RATE_LIMIT_MAIL_MAX: UNLIMITED,
    ...providerEnvironment('http://app.example.test', { google, github }),
  });
  // As identity's own role: what the unit itself may do to the table.
  identityDb = new pg.Client({ connectionString: stack.databaseUrls.identity });
  await identityDb.connect();
}, 90_000);

afterAll(async () => {
  await identityDb?.end();
  await stack?.destroy();
  await Promise.all([google?.stop(), github?.stop()]);
});

type Account = Awaited<ReturnType<typeof signedInAccount>>;
interface Entry {
  id: string;
  seq: number;
  action: string;
  actor: { type: string; id: string };
  target: { type: string; id: string };
  ip: string;
  user_agent: string;
  created_at: string;
  data: Record<string, unknown>;
  hash: string;
}
interface Page {
  items: Entry[];
  next_cursor: string | null;
}

async function createOrg(owner: Account): Promise<{ id: string }> {
  const created = await owner.client.post<{ id: string }>('/v0/orgs', { name: 'Acme', slug: `acme-${randomBytes(4).toString('hex')}` });
  expect({ status: created.status, text: created.text }).toMatchObject({ status: 201 });
  return created.body;
}

async function join(owner: Account, orgId: string, invited: Account, role: string): Promise<void> {
  const before = countMails(stack, invited.email, 'invitations/accept');
  expect((await owner.client.post(`/v0/orgs/${orgId}/invitations`, { email: invited.email, role })).status).toBe(201);
  const token = await mailedToken(stack, invited.email, 'invitations/accept', before);
  expect((await invited.client.post('/v0/invitations/accept', { token })).status).toBe(200);
}

/** The export as a client downloads it: status, content type, body. */
async function download(account: Account, orgId: string): Promise<{ status: number; type: string | null; text: string }> {
  const response = await fetch(`${stack.gatewayUrl}/v0/orgs/${orgId}/audit-log/export`, { headers: { cookie: `session_id=${account.client.sessionCookie!}` } });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

/** The checker docs/audit.md gives, run with python3: whether the file checks. */
function checks(ndjson: string): boolean {
  const checker = /<!-- audit-checker -->\n```python\n([\s\S]*?)```/.exec(readFileSync(path.join(root, 'docs/audit.md'), 'utf8'))![1]!;
  try {
    execFileSync('python3', ['-c', checker], { input: ndjson, stdio: ['pipe', 'pipe', 'pipe'] });
    return true;
  } catch {
    return false;
  }
}

describe('the audit log of an organisation', () => {
  let owner: Account;
  let member: Account;
  let orgId: string;

  beforeAll(async () => {
    owner = await signedInAccount(stack, 'auditowner', { 'user-agent': 'AuditTest/1.0 (owner)' });
    member = await signedInAccount(stack, 'auditmember', { 'user-agent': 'AuditTest/1.0 (member)' });
    orgId = (await createOrg(owner)).id;
    await join(owner, orgId, member, 'member');
    expect((await owner.client.patch(`/v0/orgs/${orgId}`, { name: 'Acme Audited' })).status).toBe(200);
  });

  it('shows each change with its actor, target, IP and user agent, newest first', async () => {
    const page = await owner.client.get<Page>(`/v0/orgs/${orgId}/audit-log`);
    expect(page.status).toBe(200);
    expect(page.body.items.map((entry) => [entry.action, entry.actor, entry.target.type, entry.user_agent])).toEqual([
      ['org.updated', { type: 'user', id: owner.id }, 'organization', 'AuditTest/1.0 (owner)'],
      ['org.member.added', { type: 'user', id: member.id }, 'user', 'AuditTest/1.0 (member)'],
      ['org.invitation.accepted', { type: 'user', id: member.id }, 'invitation', 'AuditTest/1.0 (member)'],
      ['org.invitation.created', { type: 'user', id: owner.id }, 'invitation', 'AuditTest/1.0 (owner)'],
      ['org.member.added', { type: 'user', id: owner.id }, 'user', 'AuditTest/1.0 (owner)'],
      ['org.created', { type: 'user', id: owner.id }, 'organization', 'AuditTest/1.0 (owner)'],
    ]);
    for (const entry of page.body.items) expect(entry.ip).toMatch(/^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/);
    expect(page.body.next_cursor).toBeNull();
  });

  it('filters by action, actor and time, and pages by cursor', async () => {
    const byAction = await owner.client.get<Page>(`/v0/orgs/${orgId}/audit-log?action=org.member.added`);
    expect(byAction.body.items.map((entry) => entry.target.id)).toEqual([member.id, owner.id]);
    const byActor = await owner.client.get<Page>(`/v0/orgs/${orgId}/audit-log?actor_id=${member.id}`);
    expect(byActor.body.items.map((entry) => entry.action)).toEqual(['org.member.added', 'org.invitation.accepted']);
    const all = (await owner.client.get<Page>(`/v0/orgs/${orgId}/audit-log`)).body.items;
    const until = await owner.client.get<Page>(`/v0/orgs/${orgId}/audit-log?until=${encodeURIComponent(all[0]!.created_at)}`);
    expect(until.body.items.every((entry) => entry.created_at < all[0]!.created_at)).toBe(true);
    const since = await owner.client.get<Page>(`/v0/orgs/${orgId}/audit-log?since=${encodeURIComponent(all[0]!.created_at)}`);
    expect(since.body.items.map((entry) => entry.id)).toContain(all[0]!.id);

    const seen: number[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const next: Page = (await owner.client.get<Page>(`/v0/orgs/${orgId}/audit-log?limit=4${cursor ? `&cursor=${cursor}` : ''}`)).body;
      seen.push(...next.items.map((entry) => entry.seq));
      cursor = next.next_cursor;
    }
    expect(seen).toEqual([6, 5, 4, 3, 2, 1]);
    expect(await owner.client.get(`/v0/orgs/${orgId}/audit-log?cursor=bad`)).toMatchObject({ status: 400, body: { code: 'validation:invalid_input' } });
    expect(await owner.client.get(`/v0/orgs/${orgId}/audit-log?since=yesterday`)).toMatchObject({ status: 400, body: { code: 'validation:invalid_input' } });
  });

  it('needs audit:read, and is 404 to an account outside the organisation', async () => {
    expect(await member.client.get(`/v0/orgs/${orgId}/audit-log`)).toMatchObject({ status: 403, body: { code: 'org:forbidden' } });
    expect(await member.client.get(`/v0/orgs/${orgId}/audit-log/export`)).toMatchObject({ status: 403, body: { code: 'org:forbidden' } });
    const stranger = await signedInAccount(stack, 'auditstranger');
    await createOrg(stranger);
    expect(await stranger.client.get(`/v0/orgs/${orgId}/audit-log`)).toMatchObject({ status: 404, body: { code: 'org:not_found' } });
    expect(await stranger.client.get(`/v0/orgs/${orgId}/audit-log/export`)).toMatchObject({ status: 404, body: { code: 'org:not_found' } });
  });

  it('exports NDJSON that the documented checker verifies, and shows an entry changed, removed or moved', async () => {
    const exported = await download(owner, orgId);
    expect(exported.status).toBe(200);
    expect(exported.type).toMatch(/^application\/x-ndjson/);
    const lines = exported.text.trimEnd().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as Entry).seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(checks(exported.text)).toBe(true);

    const changed = lines.map((line, index) => (index === 2 ? line.replace(/"ip":"[^"]*"/, '"ip":"192.0.2.1"') : line));
    expect(checks(`${changed.join('\n')}\n`)).toBe(false);
    expect(checks(`${lines.filter((_line, index) => index !== 3).join('\n')}\n`)).toBe(false);
    expect(checks(`${[lines[0], lines[2], lines[1], ...lines.slice(3)].join('\n')}\n`)).toBe(false);
  });

  it('records a member’s sign-in and failed sign-in, with IP and user agent, in each of its organisations', async () => {
    const other = (await createOrg(member)).id;
    const browser = new ApiClient(stack.gatewayUrl, { 'user-agent': 'SignInTest/2.0' });
    expect((await browser.post('/v0/auth/login', { email: member.email, password: 'not the password at all' })).status).toBe(401);
    expect((await browser.post('/v0/auth/login', { email: member.email, password: member.password })).status).toBe(200);
    for (const [account, id] of [
      [owner, orgId],
      [member, other],
    ] as const) {
      const signIns = await account.client.get<Page>(`/v0/orgs/${id}/audit-log?actor_id=${member.id}&limit=2`);
      expect(signIns.body.items.map((entry) => [entry.action, entry.target.id, entry.user_agent, entry.data])).toEqual([
        ['auth.sign_in', member.id, 'SignInTest/2.0', { method: 'password' }],
        ['auth.sign_in_failed', member.id, 'SignInTest/2.0', { method: 'password', reason: 'invalid_credentials' }],
      ]);
    }
  });

  it('records a member’s sign-ins by passkey, Google and GitHub, and a disabled account’s as failed', async () => {
    const signer = await signedInAccount(stack, 'auditsigner');
    await join(owner, orgId, signer, 'member');
    const authenticator = new SoftwareAuthenticator({ origin: stack.env.PUBLIC_APP_URL! });
    const creation = await signer.client.post<CreationOptionsJson>('/v0/auth/passkeys/registration/options');
    expect((await signer.client.post('/v0/auth/passkeys/registration/verify', { response: authenticator.register(creation.body) })).status).toBe(201);

    const browser = new ApiClient(stack.gatewayUrl, { 'user-agent': 'SignInTest/3.0' });
    const passkeySignIn = async () => {
      const request = await browser.post<RequestOptionsJson>('/v0/auth/passkeys/authentication/options');
      return browser.post('/v0/auth/passkeys/authentication/verify', { response: authenticator.authenticate(request.body) });
    };
    const providerSignIn = async (provider: 'google' | 'github') => {
      const authorize = await browser.get<{ authorization_url: string }>(`/v0/auth/oauth/${provider}/authorize?purpose=login`);
      return browser.post<{ status: string }>(`/v0/auth/oauth/${provider}/login`, await followAuthorization(authorize.body.authorization_url));
    };
    expect((await passkeySignIn()).status).toBe(200);
    const sub = `g-${randomBytes(4).toString('hex')}`;
    await google.nextLogin({ idToken: { sub, email: signer.email, email_verified: true, name: 'Signer' } });
    expect((await providerSignIn('google')).body.status).toBe('linked');
    await google.nextLogin({ idToken: { sub, email: signer.email, email_verified: true, name: 'Signer' } });
    expect((await providerSignIn('google')).body.status).toBe('signed_in');
    const githubId = Math.floor(Math.random() * 1e9);
    await github.nextLogin({
      user: { id: githubId, login: `octo${githubId}`, name: 'Signer', email: null, avatar_url: 'https://pics.example/octo.png' },
      emails: [{ email: signer.email, primary: true, verified: true, visibility: 'private' }],
    });
    expect((await providerSignIn('github')).body.status).toBe('linked');

    const admin = createTestServiceClient(adminV1.AdminServiceService, `127.0.0.1:${stack.processes.get('identity')!.ports.ADMIN_GRPC_PORT}`, undefined, {
      operator: 'audit-e2e',
    });
    try {
      await admin.disableUser({ userId: signer.id, reason: 'e2e' });
    } finally {
      admin.close();
    }
    expect(await passkeySignIn()).toMatchObject({ status: 403, body: { code: 'auth:account_disabled' } });

    const signIns = await owner.client.get<Page>(`/v0/orgs/${orgId}/audit-log?actor_id=${signer.id}&limit=5`);
    expect(signIns.body.items.map((entry) => [entry.action, entry.target.id, entry.user_agent, entry.data])).toEqual([
      ['auth.sign_in_failed', signer.id, 'SignInTest/3.0', { method: 'passkey', reason: 'account_disabled' }],
      ['auth.sign_in', signer.id, 'SignInTest/3.0', { method: 'github' }],
      ['auth.sign_in', signer.id, 'SignInTest/3.0', { method: 'google' }],
      ['auth.sign_in', signer.id, 'SignInTest/3.0', { method: 'google' }],
      ['auth.sign_in', signer.id, 'SignInTest/3.0', { method: 'passkey' }],
    ]);
  });

  it('has no route that changes or deletes an entry, and identity’s own role cannot either', async () => {
    const [entry] = (await owner.client.get<Page>(`/v0/orgs/${orgId}/audit-log`)).body.items;
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      expect((await owner.client.request(method, `/v0/orgs/${orgId}/audit-log`, { json: {} })).status).toBeGreaterThanOrEqual(404);
      expect((await owner.client.request(method, `/v0/orgs/${orgId}/audit-log/${entry!.id}`, { json: {} })).status).toBe(404);
    }
    await expect(identityDb.query(`UPDATE identity.org_audit_log SET ip = '192.0.2.1' WHERE id = $1`, [entry!.id])).rejects.toMatchObject({ code: '42501' });
    await expect(identityDb.query('DELETE FROM identity.org_audit_log WHERE id = $1', [entry!.id])).rejects.toMatchObject({ code: '42501' });
    expect(checks((await download(owner, orgId)).text)).toBe(true);
  });
});

describe('exports of many entries', () => {
  /** The resident set size of a process, in bytes (VmRSS). */
  function rssOf(pid: number): number {
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
  }

  /** An organisation with `entries` entries more, written by SQL (their hashes are not a chain: this measures memory). */
  async function bulkOrganization(entries: number): Promise<{ owner: Account; orgId: string }> {
    const owner = await signedInAccount(stack, 'bulkowner');
    const orgId = (await createOrg(owner)).id;
    await identityDb.query(
      `INSERT INTO identity.org_audit_log (id, organization_id, seq, action, actor_type, actor_id, target_type, target_id, ip, user_agent, data, created_at, prev_hash, hash)
       SELECT gen_random_uuid(), $1::uuid, n, 'org.updated', 'user', $2, 'organization', $1::text, '198.51.100.9', 'Bulk/1.0 ' || repeat('x', 120),
              jsonb_build_object('name', 'Bulk ' || n, 'slug', 'bulk'), date_trunc('milliseconds', now()),
              repeat('0', 64), encode(sha256(n::text::bytea), 'hex')
       FROM generate_series(3, $3::int + 2) AS n`,
      [orgId, owner.id, entries],
    );
    // The chain's head moves on with them, as identity's own writes move it.
    await identityDb.query(`UPDATE identity.org_audit_heads SET seq = $2::bigint, hash = repeat('a', 64) WHERE organization_id = $1`, [orgId, entries + 2]);
    return { owner, orgId };
  }

  /** Downloads an export as a client would, keeping nothing but counts, sampling the processes' memory as it streams. */
  async function exportMeasured(owner: Account, orgId: string, pids: Record<'gateway' | 'identity', number>) {
    const most = { gateway: rssOf(pids.gateway), identity: rssOf(pids.identity) };
    let sampledAt = 0;
    const sample = (): void => {
      sampledAt = Date.now();
      for (const unit of ['gateway', 'identity'] as const) most[unit] = Math.max(most[unit], rssOf(pids[unit]));
    };
    const response = await fetch(`${stack.gatewayUrl}/v0/orgs/${orgId}/audit-log/export`, { headers: { cookie: `session_id=${owner.client.sessionCookie!}` } });
    expect(response.status).toBe(200);
    let lines = 0;
    let bytes = 0;
    const decoder = new TextDecoder();
    const reader: ReadableStreamDefaultReader<Uint8Array> = response.body!.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      bytes += read.value.length;
      lines += (decoder.decode(read.value, { stream: true }).match(/\n/g) ?? []).length;
      if (Date.now() - sampledAt >= 50) sample();
    }
    sample();
    return { lines, bytes, most };
  }

  it('ends an export cut short, not cleanly, when a batch fails mid-stream: here the reader loses audit:read', async () => {
    const { owner, orgId } = await bulkOrganization(20_000);
    const reader = await signedInAccount(stack, 'auditreader');
    await join(owner, orgId, reader, 'admin');
    const response = await fetch(`${stack.gatewayUrl}/v0/orgs/${orgId}/audit-log/export`, { headers: { cookie: `session_id=${reader.client.sessionCookie!}` } });
    expect(response.status).toBe(200);
    const body: ReadableStreamDefaultReader<Uint8Array> = response.body!.getReader();
    expect((await body.read()).done).toBe(false);
    expect((await owner.client.patch(`/v0/orgs/${orgId}/members/${reader.id}`, { role: 'member' })).status).toBe(200);
    const ending = (async () => {
      for (let read = await body.read(); !read.done; read = await body.read());
      return 'clean end';
    })();
    await expect(ending).rejects.toThrow();
  });

  it('streams 500,000 entries in no more memory than 100,000, in the gateway and in identity', async () => {
    const pids = { gateway: stack.processes.get('gateway')!.pid!, identity: stack.processes.get('identity')!.pid! };
    const small = await bulkOrganization(100_000);
    const large = await bulkOrganization(500_000);
    const first = await exportMeasured(small.owner, small.orgId, pids);
    expect(first.lines).toBe(100_002);
    const second = await exportMeasured(large.owner, large.orgId, pids);
    expect(second.lines).toBe(500_002);
    // Over 320 MB of NDJSON, 260 MB more than the first: an export held whole, or a part growing with it, would need that much more.
    expect(second.bytes - first.bytes).toBeGreaterThan(260 * 1024 * 1024);
    for (const unit of ['gateway', 'identity'] as const) {
      // An export held whole, or any part growing with it, grows by at least the added bytes (over 260 MB). What a
      // streaming export grows by is the garbage collector's own pace, which a busy machine slows: 34 MB on an idle
      // one from 100,000 to 300,000 entries, 69 MB in a parallel test run on Node 22 (the gateway's peak levels off
      // near 260 MB, identity's near 190 MB, at 600,000 entries too). Half the added bytes parts the two widely.
      const grewMB = Math.round((second.most[unit] - first.most[unit]) / (1024 * 1024));
      const boundMB = Math.round((second.bytes - first.bytes) / 2 / (1024 * 1024));
      expect({ unit, grewMB, flat: grewMB < boundMB }).toEqual({ unit, grewMB, flat: true });
    }
  }, 300_000);
});
