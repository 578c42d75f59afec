import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { orgsV1 } from '@latchkey/contracts';
import { createPool } from '@latchkey/db';
import { startRequestContext, type RequestContext } from '@latchkey/grpc-kit';
import type { Running } from '@latchkey/runtime';
import { createLogger } from '@latchkey/telemetry';
import { createTestDatabase, createTestServiceClient, testNatsUrl, testRedisUrl, uniqueName, type TestDatabase, type TestServiceClient } from '@latchkey/test-kit';
import { loadIdentityConfig } from '../../src/config';
import { IDENTITY_SCHEMA, startIdentityService } from '../../src/identity-service';
import { migrate } from '../../src/migrate';
import { expireOrgAudit, exportOrgAudit, listOrgAudit, type AuditEntry } from '../../src/orgs/org-audit-log';

/**
 * docs/audit.md at identity: an entry for every change of an organisation,
 * with its actor and the end user's client, in a hash chain that the
 * documented checker verifies and that shows any entry changed, removed or
 * moved; append-only but for retention.
 */
const logger = createLogger({ service: 'identity-org-audit-test', level: 'silent' });
const root = path.resolve(__dirname, '../../../..');

let database: TestDatabase;
let pool: pg.Pool;
let service: Running;
let orgs: TestServiceClient<typeof orgsV1.OrganizationsServiceService>;

beforeAll(async () => {
  database = await createTestDatabase('identity_org_audit');
  await migrate({ DATABASE_URL: database.url }, logger);
  pool = createPool({ connectionString: database.url, schema: IDENTITY_SCHEMA, max: 4, applicationName: 'identity-org-audit-test', onIdleError: () => undefined });
  const prefix = uniqueName('identity_org_audit');
  service = await startIdentityService(
    loadIdentityConfig({
      DATABASE_URL: database.url,
      NATS_URL: testNatsUrl(),
      NATS_SUBJECT_PREFIX: prefix,
      REDIS_URL: testRedisUrl(),
      REDIS_KEY_PREFIX: `${prefix}:`,
      GRPC_PORT: '0',
      ADMIN_GRPC_PORT: '0',
      METRICS_PORT: '0',
    }),
    logger,
  );
  orgs = createTestServiceClient(orgsV1.OrganizationsServiceService, `127.0.0.1:${String(service.readyFields?.grpc_port)}`);
});

afterAll(async () => {
  orgs?.close();
  await service?.stop();
  await pool?.end();
  await database?.drop();
});

/** A call's context as the gateway makes it for an end user's request. */
function fromClient(ip: string, userAgent: string): RequestContext {
  return startRequestContext({ requestId: randomUUID(), logger, deadline: Date.now() + 5_000, client: { ip, userAgent } }).context;
}

async function newUser(): Promise<{ id: string; email: string }> {
  const id = randomUUID();
  const email = `${id}@example.com`;
  await pool.query(`INSERT INTO identity.users (id, handle, email, password_hash, email_verified_at) VALUES ($1, $2, $3, NULL, now())`, [id, `u_${id.slice(0, 8)}`, email]);
  return { id, email };
}

async function newOrganization(context = fromClient('198.51.100.1', 'setup')): Promise<{ ownerId: string; organizationId: string }> {
  const owner = await newUser();
  const { organization } = await orgs.createOrganization({ actorUserId: owner.id, name: 'Acme', slug: `acme-${randomBytes(4).toString('hex')}` }, context);
  return { ownerId: owner.id, organizationId: organization!.id };
}

async function exported(organizationId: string): Promise<AuditEntry[]> {
  const entries: AuditEntry[] = [];
  for await (const entry of exportOrgAudit(pool, organizationId, {})) entries.push(entry);
  return entries;
}

const ndjson = (entries: readonly object[]): string => entries.map((entry) => `${JSON.stringify(entry)}\n`).join('');

/** The checker docs/audit.md gives, run with python3 as an auditor would: its exit status and what it printed. */
function check(file: string): { ok: boolean; output: string } {
  const doc = readFileSync(path.join(root, 'docs/audit.md'), 'utf8');
  const checker = /<!-- audit-checker -->\n```python\n([\s\S]*?)```/.exec(doc)![1]!;
  try {
    return { ok: true, output: execFileSync('python3', ['-c', checker], { input: file, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] }) };
  } catch (error) {
    return { ok: false, output: String((error as { stderr?: string }).stderr) };
  }
}

describe('entries of changes', () => {
  it('records each change with its actor, target, IP and user agent, in the order made', async () => {
    const { ownerId, organizationId } = await newOrganization(fromClient('203.0.113.7', 'Mozilla/5.0 (X11) Zürich'));
    const colleague = await newUser();
    const from = fromClient('2001:db8::5', 'curl/8.5.0');
    await orgs.updateOrganization({ actorUserId: ownerId, organizationId, name: 'Acme Inc' }, from);
    await orgs.createRole({ actorUserId: ownerId, organizationId, name: 'billing', permissions: ['invoices:read'] }, from);
    await orgs.updateRole({ actorUserId: ownerId, organizationId, name: 'billing', permissions: ['invoices:read', 'invoices:pay'] }, from);
    const { invitation } = await orgs.createInvitation({ actorUserId: ownerId, organizationId, email: colleague.email, role: 'billing' }, from);
    const { rows } = await pool.query<{ payload: { token: string } }>(`SELECT payload FROM identity.outbox WHERE payload->>'to' = $1`, [colleague.email]);
    await orgs.acceptInvitation({ token: rows[0]!.payload.token, userId: colleague.id }, fromClient('192.0.2.44', 'Colleague/1.0'));
    await orgs.changeMemberRole({ actorUserId: ownerId, organizationId, userId: colleague.id, role: 'member' }, from);
    await orgs.deleteRole({ actorUserId: ownerId, organizationId, name: 'billing' }, from);
    await orgs.removeMember({ actorUserId: colleague.id, organizationId, userId: colleague.id }, fromClient('192.0.2.44', 'Colleague/1.0'));
    const second = await newUser();
    const { invitation: withdrawn } = await orgs.createInvitation({ actorUserId: ownerId, organizationId, email: second.email, role: 'member' }, from);
    await orgs.revokeInvitation({ actorUserId: ownerId, organizationId, invitationId: withdrawn!.id }, from);

    const entries = await exported(organizationId);
    expect(entries.map((entry) => [entry.seq, entry.action, entry.actor, entry.target, entry.ip, entry.user_agent, entry.data])).toEqual([
      [1, 'org.created', { type: 'user', id: ownerId }, { type: 'organization', id: organizationId }, '203.0.113.7', 'Mozilla/5.0 (X11) Zürich', { name: 'Acme', slug: expect.any(String) }],
      [2, 'org.member.added', { type: 'user', id: ownerId }, { type: 'user', id: ownerId }, '203.0.113.7', 'Mozilla/5.0 (X11) Zürich', { role: 'owner', source: 'creator' }],
      [3, 'org.updated', { type: 'user', id: ownerId }, { type: 'organization', id: organizationId }, '2001:db8::5', 'curl/8.5.0', { name: 'Acme Inc', slug: expect.any(String) }],
      [4, 'org.role.created', { type: 'user', id: ownerId }, { type: 'role', id: 'billing' }, '2001:db8::5', 'curl/8.5.0', { permissions: ['invoices:read'] }],
      [
        5,
        'org.role.updated',
        { type: 'user', id: ownerId },
        { type: 'role', id: 'billing' },
        '2001:db8::5',
        'curl/8.5.0',
        { permissions: ['invoices:pay', 'invoices:read'], previous_permissions: ['invoices:read'] },
      ],
      [6, 'org.invitation.created', { type: 'user', id: ownerId }, { type: 'invitation', id: invitation!.id }, '2001:db8::5', 'curl/8.5.0', { role: 'billing' }],
      [7, 'org.invitation.accepted', { type: 'user', id: colleague.id }, { type: 'invitation', id: invitation!.id }, '192.0.2.44', 'Colleague/1.0', {}],
      [8, 'org.member.added', { type: 'user', id: colleague.id }, { type: 'user', id: colleague.id }, '192.0.2.44', 'Colleague/1.0', { role: 'billing', source: 'invitation' }],
      [9, 'org.member.role_changed', { type: 'user', id: ownerId }, { type: 'user', id: colleague.id }, '2001:db8::5', 'curl/8.5.0', { role: 'member', previous_role: 'billing' }],
      [10, 'org.role.deleted', { type: 'user', id: ownerId }, { type: 'role', id: 'billing' }, '2001:db8::5', 'curl/8.5.0', {}],
      [11, 'org.member.removed', { type: 'user', id: colleague.id }, { type: 'user', id: colleague.id }, '192.0.2.44', 'Colleague/1.0', { reason: 'left', role: 'member' }],
      [12, 'org.invitation.created', { type: 'user', id: ownerId }, { type: 'invitation', id: withdrawn!.id }, '2001:db8::5', 'curl/8.5.0', { role: 'member' }],
      [13, 'org.invitation.revoked', { type: 'user', id: ownerId }, { type: 'invitation', id: withdrawn!.id }, '2001:db8::5', 'curl/8.5.0', {}],
    ]);
    // No entry holds an address: an append-only table cannot forget it.
    expect(JSON.stringify(entries)).not.toContain('@example.com');

    await orgs.deleteOrganization({ actorUserId: ownerId, organizationId }, from);
    const afterDeletion = await exported(organizationId);
    expect(afterDeletion.slice(-2).map((entry) => [entry.action, entry.data])).toEqual([
      ['org.member.removed', { reason: 'removed' }],
      ['org.deleted', { reason: 'user' }],
    ]);
    expect(check(ndjson(afterDeletion))).toMatchObject({ ok: true });
  });

  it('writes no entry for a change that is refused, and none outside its transaction', async () => {
    const { ownerId, organizationId } = await newOrganization();
    const before = await exported(organizationId);
    await expect(orgs.changeMemberRole({ actorUserId: ownerId, organizationId, userId: ownerId, role: 'member' }, fromClient('198.51.100.2', 'x'))).rejects.toMatchObject({
      code: 'org:last_owner',
    });
    expect(await exported(organizationId)).toEqual(before);
  });
});

describe('the chain', () => {
  let entries: AuditEntry[];

  beforeAll(async () => {
    const { ownerId, organizationId } = await newOrganization();
    for (let n = 0; n < 6; n += 1) await orgs.updateOrganization({ actorUserId: ownerId, organizationId, name: `Acme ${n} “quoted” ✓` }, fromClient('198.51.100.3', `agent ${n}`));
    entries = await exported(organizationId);
  });

  it('verifies with the checker of docs/audit.md, and each hash with jq and sha256sum', () => {
    expect(entries).toHaveLength(8);
    expect(check(ndjson(entries))).toEqual({ ok: true, output: `seq 8 checks; last hash ${entries[7]!.hash}\n` });
    const recomputed = execFileSync('sh', ['-c', "jq -cSj 'del(.hash)' | sha256sum"], { input: JSON.stringify(entries[3]), encoding: 'utf8' });
    expect(recomputed.split(' ')[0]).toBe(entries[3]!.hash);
  });

  it('shows an entry changed, removed or moved', () => {
    const changed = entries.map((entry, index) => (index === 4 ? { ...entry, ip: '192.0.2.1' } : entry));
    expect(check(ndjson(changed))).toEqual({ ok: false, output: expect.stringContaining('line 5: entry') });
    const rehashedAlone = entries.map((entry, index) => (index === 4 ? { ...entry, data: { name: 'Other' } } : entry));
    expect(check(ndjson(rehashedAlone)).ok).toBe(false);
    const removed = entries.filter((_entry, index) => index !== 3);
    expect(check(ndjson(removed))).toEqual({ ok: false, output: expect.stringContaining('line 4: does not follow line 3') });
    const reordered = [...entries];
    [reordered[2], reordered[3]] = [reordered[3]!, reordered[2]!];
    expect(check(ndjson(reordered)).ok).toBe(false);
    const withoutHead = entries.slice(1).map((entry, index) => (index === 0 ? { ...entry, seq: 1, prev_hash: '0'.repeat(64) } : entry));
    expect(check(ndjson(withoutHead)).ok).toBe(false);
  });

  it('never forks when writers of one organisation race', async () => {
    const { ownerId, organizationId } = await newOrganization();
    await Promise.all(Array.from({ length: 12 }, (_unused, n) => orgs.updateOrganization({ actorUserId: ownerId, organizationId, name: `Race ${n}` }, fromClient('198.51.100.4', 'race'))));
    const raced = await exported(organizationId);
    expect(raced.map((entry) => entry.seq)).toEqual(Array.from({ length: 14 }, (_unused, n) => n + 1));
    expect(check(ndjson(raced)).ok).toBe(true);
  });
});

describe('append-only', () => {
  it('refuses every update, deletion and truncation, whoever runs it', async () => {
    const { organizationId } = await newOrganization();
    const refused = async (statement: string) =>
      pool.query(statement, statement.includes('$1') ? [organizationId] : []).then(
        () => 'done',
        (error: { code?: string }) => error.code,
      );
    expect(await refused(`UPDATE identity.org_audit_log SET ip = '192.0.2.9' WHERE organization_id = $1`)).toBe('42501');
    expect(await refused(`DELETE FROM identity.org_audit_log WHERE organization_id = $1`)).toBe('42501');
    expect(await refused('TRUNCATE identity.org_audit_log')).toBe('42501');
    expect((await exported(organizationId)).length).toBe(2);
  });

  it('lets retention remove the oldest entries of each chain only, and the chain goes on from its head', async () => {
    const { ownerId, organizationId } = await newOrganization();
    const other = await newOrganization();
    const created = await exported(organizationId);
    // The next change in a later millisecond than the creation's two entries.
    while (Date.now() <= Date.parse(created[1]!.created_at) + 1) await new Promise((resolve) => setImmediate(resolve));
    await orgs.updateOrganization({ actorUserId: ownerId, organizationId, name: 'Kept' }, fromClient('198.51.100.5', 'kept'));
    const all = await exported(organizationId);
    // Retention with a cutoff just after the second entry: entries 1 and 2 go, 3 stays.
    const cutoff = new Date(Date.parse(all[1]!.created_at) + 1);
    expect(Date.parse(all[2]!.created_at)).toBeGreaterThanOrEqual(cutoff.getTime());
    await expireOrgAudit(pool, cutoff);
    const kept = await exported(organizationId);
    expect(kept).toEqual(all.slice(2));
    expect(check(ndjson(kept)).ok).toBe(true);
    expect(kept[0]!.prev_hash).toBe(all[1]!.hash);

    await expireOrgAudit(pool, new Date(Date.now() + 60_000));
    expect(await exported(organizationId)).toEqual([]);
    expect(await exported(other.organizationId)).toEqual([]);
    await orgs.updateOrganization({ actorUserId: ownerId, organizationId, name: 'After' }, fromClient('198.51.100.5', 'after'));
    const [next] = await exported(organizationId);
    expect([next!.seq, next!.prev_hash]).toEqual([4, kept[0]!.hash]);
  });
});

describe('listing', () => {
  it('pages newest first by keyset, filters by action, actor and time, and keeps to its organisation', async () => {
    const { ownerId, organizationId } = await newOrganization();
    const other = await newOrganization();
    for (let n = 0; n < 25; n += 1) await orgs.updateOrganization({ actorUserId: ownerId, organizationId, name: `Page ${n}` }, fromClient('198.51.100.6', 'pages'));
    const seen: number[] = [];
    let cursor = '';
    do {
      const page = await listOrgAudit(pool, organizationId, {}, { limit: 10, cursor });
      seen.push(...page.entries.map((entry) => entry.seq));
      cursor = page.nextCursor;
    } while (cursor !== '');
    expect(seen).toEqual(Array.from({ length: 27 }, (_unused, n) => 27 - n));

    const updates = await listOrgAudit(pool, organizationId, { action: 'org.updated', actorId: ownerId }, { limit: 100, cursor: '' });
    expect(updates.entries).toHaveLength(25);
    const all = await exported(organizationId);
    const window = await listOrgAudit(pool, organizationId, { since: new Date(all[5]!.created_at), until: new Date(all[6]!.created_at) }, { limit: 100, cursor: '' });
    expect(window.entries.every((entry) => entry.created_at >= all[5]!.created_at && entry.created_at < all[6]!.created_at)).toBe(true);
    expect((await listOrgAudit(pool, other.organizationId, {}, { limit: 100, cursor: '' })).entries.map((entry) => entry.organization_id)).toEqual([
      other.organizationId,
      other.organizationId,
    ]);
    await expect(listOrgAudit(pool, organizationId, {}, { limit: 10, cursor: 'bm90LWEtY3Vyc29y' })).rejects.toMatchObject({ code: 'validation:invalid_input' });
  });
});
