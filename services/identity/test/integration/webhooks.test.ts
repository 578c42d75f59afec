import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { orgsV1 } from '@latchkey/contracts';
import { createPool } from '@latchkey/db';
import { AppError } from '@latchkey/errors';
import type { Running } from '@latchkey/runtime';
import { openSealed } from '@latchkey/secret-box';
import { createLogger } from '@latchkey/telemetry';
import { createTestDatabase, createTestServiceClient, testNatsUrl, testRedisUrl, uniqueName, type TestDatabase, type TestServiceClient } from '@latchkey/test-kit';
import { loadIdentityConfig } from '../../src/config';
import { IDENTITY_SCHEMA, startIdentityService } from '../../src/identity-service';
import { migrate } from '../../src/migrate';

/**
 * Webhook endpoints at identity's gRPC API (orgs.v1,
 * docs/decisions/0006-webhooks.md), with NODE_ENV=production so that the
 * address guard is on: who may manage them, that another organisation's
 * endpoints stay out of reach, and that secrets are kept sealed to the jobs
 * worker's key.
 */
const logger = createLogger({ service: 'identity-webhooks-test', level: 'silent' });
const jobsKey = generateKeyPairSync('x25519');
/** A public address written in the URL: nothing is resolved, nothing is called by these operations. */
const PUBLIC_URL = 'https://93.184.215.14/hooks/latchkey';

let database: TestDatabase;
let pool: pg.Pool;
let service: Running;
let orgs: TestServiceClient<typeof orgsV1.OrganizationsServiceService>;

beforeAll(async () => {
  database = await createTestDatabase('identity_webhooks');
  await migrate({ DATABASE_URL: database.url }, logger);
  pool = createPool({ connectionString: database.url, schema: IDENTITY_SCHEMA, max: 2, applicationName: 'identity-webhooks-test', onIdleError: () => undefined });
  const prefix = uniqueName('identity_webhooks');
  service = await startIdentityService(
    loadIdentityConfig({
      NODE_ENV: 'production',
      DATABASE_URL: database.url,
      NATS_URL: testNatsUrl(),
      NATS_SUBJECT_PREFIX: prefix,
      REDIS_URL: testRedisUrl(),
      REDIS_KEY_PREFIX: `${prefix}:`,
      GRPC_PORT: '0',
      ADMIN_GRPC_PORT: '0',
      METRICS_PORT: '0',
      WEBHOOK_SEALING_PUBLIC_KEY: jobsKey.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
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

async function newUser(): Promise<string> {
  const id = randomUUID();
  await pool.query(`INSERT INTO identity.users (id, handle, email, password_hash, email_verified_at) VALUES ($1, $2, $3, NULL, now())`, [
    id,
    `u_${id.slice(0, 8)}`,
    `${id}@example.com`,
  ]);
  return id;
}

/** An organisation with its owner, and a plain member (no webhooks:manage). */
async function newOrganization(): Promise<{ id: string; owner: string; member: string }> {
  const owner = await newUser();
  const { organization } = await orgs.createOrganization({ actorUserId: owner, name: 'Acme', slug: `acme-${randomBytes(4).toString('hex')}` });
  const member = await newUser();
  await pool.query(`INSERT INTO identity.org_memberships (organization_id, user_id, role, source) VALUES ($1, $2, 'member', 'admin')`, [organization!.id, member]);
  return { id: organization!.id, owner, member };
}

async function failureOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}

async function sealedSecretsOf(webhookId: string): Promise<{ sealed: Buffer; expires_at: Date | null }[]> {
  const { rows } = await pool.query<{ sealed: Buffer; expires_at: Date | null }>(
    'SELECT sealed, expires_at FROM identity.webhook_secrets WHERE endpoint_id = $1 ORDER BY created_at',
    [webhookId],
  );
  return rows;
}

describe('webhook endpoints (orgs.v1)', () => {
  it('registers an endpoint, answers its secret once and keeps it sealed to the jobs worker’s key', async () => {
    const org = await newOrganization();
    const created = await orgs.createWebhook({
      actorUserId: org.owner,
      organizationId: org.id,
      url: PUBLIC_URL,
      events: ['org.member.added', 'org.member.removed'],
      description: 'CRM sync',
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(created.secret.slice('whsec_'.length), 'base64').length).toBeGreaterThanOrEqual(24);
    expect(created.webhook).toMatchObject({ url: PUBLIC_URL, events: ['org.member.added', 'org.member.removed'], description: 'CRM sync', enabled: true });
    const webhookId = created.webhook!.id;

    const [stored] = await sealedSecretsOf(webhookId);
    expect(stored!.expires_at).toBeNull();
    expect(stored!.sealed.includes(Buffer.from(created.secret))).toBe(false);
    expect(openSealed(jobsKey.privateKey, stored!.sealed, `webhook:${webhookId}`).toString()).toBe(created.secret);

    // Shown once: no later answer carries it.
    const { webhook } = await orgs.getWebhook({ actorUserId: org.owner, organizationId: org.id, webhookId });
    expect(JSON.stringify(webhook)).not.toContain(created.secret.slice(6));
    expect((await orgs.listWebhooks({ actorUserId: org.owner, organizationId: org.id })).webhooks.map((each) => each.id)).toEqual([webhookId]);

    const { rows: audit } = await pool.query<{ action: string; data: Record<string, unknown> }>(
      `SELECT action, data FROM identity.org_audit_log WHERE organization_id = $1 AND action LIKE 'webhook.%'`,
      [org.id],
    );
    expect(audit).toEqual([{ action: 'webhook.created', data: { host: '93.184.215.14', events: ['org.member.added', 'org.member.removed'] } }]);
  });

  it('changes, disables and deletes an endpoint, each change audited', async () => {
    const org = await newOrganization();
    const { webhook } = await orgs.createWebhook({ actorUserId: org.owner, organizationId: org.id, url: PUBLIC_URL, events: ['*'], description: '' });
    const call = { actorUserId: org.owner, organizationId: org.id, webhookId: webhook!.id };
    const updated = await orgs.updateWebhook({ ...call, eventsGiven: true, events: ['org.deleted'], enabled: false, description: 'paused' });
    expect(updated.webhook).toMatchObject({ url: PUBLIC_URL, events: ['org.deleted'], enabled: false, description: 'paused' });
    // Absent fields stay.
    const renamed = await orgs.updateWebhook({ ...call, eventsGiven: false, events: [], url: 'https://93.184.215.15/other' });
    expect(renamed.webhook).toMatchObject({ url: 'https://93.184.215.15/other', events: ['org.deleted'], enabled: false, description: 'paused' });
    await orgs.deleteWebhook(call);
    expect((await failureOf(orgs.getWebhook(call))).code).toBe('webhook:not_found');
    expect(await sealedSecretsOf(webhook!.id)).toEqual([]);
    const { rows } = await pool.query<{ action: string }>(`SELECT action FROM identity.org_audit_log WHERE organization_id = $1 AND action LIKE 'webhook.%' ORDER BY seq`, [org.id]);
    expect(rows.map((row) => row.action)).toEqual(['webhook.created', 'webhook.updated', 'webhook.updated', 'webhook.deleted']);
  });

  it('rotates a secret: the old one keeps signing for 24 hours, and at most two ever sign', async () => {
    const org = await newOrganization();
    const created = await orgs.createWebhook({ actorUserId: org.owner, organizationId: org.id, url: PUBLIC_URL, events: ['*'], description: '' });
    const call = { actorUserId: org.owner, organizationId: org.id, webhookId: created.webhook!.id };
    const before = Date.now();
    const first = await orgs.rotateWebhookSecret(call);
    expect(first.secret).not.toBe(created.secret);
    expect(first.previousExpiresAt!.getTime() - before).toBeGreaterThan(23.9 * 3_600_000);
    expect(first.previousExpiresAt!.getTime() - before).toBeLessThan(24.1 * 3_600_000);
    const second = await orgs.rotateWebhookSecret(call);
    const secrets = await sealedSecretsOf(call.webhookId);
    const signing = secrets.filter((row) => row.expires_at === null || row.expires_at.getTime() > Date.now());
    expect(signing.map((row) => openSealed(jobsKey.privateKey, row.sealed, `webhook:${call.webhookId}`).toString())).toEqual([first.secret, second.secret]);
    const { rows } = await pool.query<{ action: string }>(`SELECT action FROM identity.org_audit_log WHERE organization_id = $1 AND action = 'webhook.secret_rotated'`, [org.id]);
    expect(rows).toHaveLength(2);
  });

  it('refuses internal addresses at registration with the address and its kind, in every form and behind a name', async () => {
    const org = await newOrganization();
    const cases: [string, RegExp][] = [
      ['http://127.0.0.1:8080/hooks', /127\.0\.0\.1 is loopback/],
      ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is cloud metadata/],
      ['http://[::1]/hooks', /::1 is loopback/],
      ['http://[::ffff:127.0.0.1]/hooks', /is loopback \(IPv4-mapped\)/],
      ['http://localhost:8080/hooks', /is loopback/],
      ['http://10.0.0.5/hooks', /10\.0\.0\.5 is private/],
    ];
    for (const [url, detail] of cases) {
      const refused = await failureOf(orgs.createWebhook({ actorUserId: org.owner, organizationId: org.id, url, events: ['*'], description: '' }));
      expect(refused.code).toBe('validation:invalid_input');
      expect(JSON.stringify(refused.fields)).toMatch(detail);
    }
    const { webhook } = await orgs.createWebhook({ actorUserId: org.owner, organizationId: org.id, url: PUBLIC_URL, events: ['*'], description: '' });
    const moved = await failureOf(
      orgs.updateWebhook({ actorUserId: org.owner, organizationId: org.id, webhookId: webhook!.id, eventsGiven: false, events: [], url: 'http://127.0.0.1/x' }),
    );
    expect(moved.code).toBe('validation:invalid_input');
    expect((await orgs.listWebhooks({ actorUserId: org.owner, organizationId: org.id })).webhooks).toHaveLength(1);
  });

  it('refuses bad input: unknown events, "*" with others, no events, a URL that is not http(s) or carries credentials', async () => {
    const org = await newOrganization();
    const bad: Partial<orgsV1.CreateWebhookRequest>[] = [
      { events: ['user.registered'] },
      { events: ['*', 'org.deleted'] },
      { events: [] },
      { events: ['org.deleted', 'org.deleted'] },
      { url: 'ftp://93.184.215.14/' },
      { url: 'https://user:pass@93.184.215.14/' },
      { url: 'not a url' },
      { description: 'two\nlines' },
    ];
    for (const change of bad) {
      const request = { actorUserId: org.owner, organizationId: org.id, url: PUBLIC_URL, events: ['*'], description: '', ...change };
      expect((await failureOf(orgs.createWebhook(request))).code).toBe('validation:invalid_input');
    }
  });

  it('keeps one organisation’s endpoints out of another’s reach, and needs webhooks:manage', async () => {
    const a = await newOrganization();
    const b = await newOrganization();
    const { webhook } = await orgs.createWebhook({ actorUserId: b.owner, organizationId: b.id, url: PUBLIC_URL, events: ['*'], description: '' });
    const ofB = webhook!.id;
    // A's owner, naming A (where they may manage) and B's endpoint id: as unknown as a made-up id.
    const asA = { actorUserId: a.owner, organizationId: a.id, webhookId: ofB };
    for (const attempt of [
      orgs.getWebhook(asA),
      orgs.updateWebhook({ ...asA, eventsGiven: false, events: [], enabled: false }),
      orgs.deleteWebhook(asA),
      orgs.rotateWebhookSecret(asA),
      orgs.getWebhook({ ...asA, webhookId: randomUUID() }),
      orgs.getWebhook({ ...asA, webhookId: 'not-a-uuid' }),
    ]) {
      expect((await failureOf(attempt)).code).toBe('webhook:not_found');
    }
    // A's owner naming B: not a member there.
    expect((await failureOf(orgs.getWebhook({ ...asA, organizationId: b.id }))).code).toBe('org:not_found');
    expect((await failureOf(orgs.listWebhooks({ actorUserId: a.owner, organizationId: b.id }))).code).toBe('org:not_found');
    // B's member without webhooks:manage.
    const asMember = { actorUserId: b.member, organizationId: b.id };
    expect((await failureOf(orgs.listWebhooks(asMember))).code).toBe('org:forbidden');
    expect((await failureOf(orgs.getWebhook({ ...asMember, webhookId: ofB }))).code).toBe('org:forbidden');
    expect((await failureOf(orgs.rotateWebhookSecret({ ...asMember, webhookId: ofB }))).code).toBe('org:forbidden');
    expect((await failureOf(orgs.createWebhook({ ...asMember, url: PUBLIC_URL, events: ['*'], description: '' }))).code).toBe('org:forbidden');
    // B's endpoint is untouched.
    const { webhook: still } = await orgs.getWebhook({ actorUserId: b.owner, organizationId: b.id, webhookId: ofB });
    expect(still).toMatchObject({ enabled: true, events: ['*'] });
    expect(await sealedSecretsOf(ofB)).toHaveLength(1);
  });
});
