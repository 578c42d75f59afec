import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type NatsConnection } from 'nats';
import pg from 'pg';
import { decodeJwt } from 'jose';
import { topology } from '@latchkey/job-streams';
import type { Running } from '@latchkey/runtime';
import { createLogger } from '@latchkey/telemetry';
import { createTestDatabase, freePort, testNatsUrl, testRedisUrl, testSigningKeys, uniqueName, waitFor, type TestDatabase } from '@latchkey/test-kit';
import { loadJobsConfig, migrateJobsSchema, startWorker, type Worker } from '../../src';
import { loadIdentityConfig } from '../../../identity/src/config';
import { startIdentityService } from '../../../identity/src/identity-service';
import { migrate as migrateIdentity } from '../../../identity/src/migrate';

/**
 * docs/oidc.md, "Logout": the `oidc_session_ending` consumer of
 * `session.revoked` does not park an event while identity is unreachable,
 * however many deliveries that takes, and the client hears of the logout
 * once identity is back; an event that does not parse is parked at once.
 */
const prefix = uniqueName('jobs_oidc_ending');
const names = topology(prefix);
const silent = createLogger({ service: 'test', level: 'silent' });

let database: TestDatabase;
let db: pg.Pool;
let nc: NatsConnection;
let worker: Worker;
let identity: Running | undefined;
let identityPort: number;
let client: Server;
const logoutTokens: string[] = [];

async function processed(outcome: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${worker.metricsPort}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('jobs_processed_total{') && l.includes('job_type="oidc_session_ending"') && l.includes(`outcome="${outcome}"`));
  return line ? Number(line.split(' ').pop()) : 0;
}

function publishEvent(body: unknown): Promise<unknown> {
  return nc.jetstream().publish(names.subject('events.session.revoked'), JSON.stringify(body), { msgID: randomUUID() });
}

beforeAll(async () => {
  database = await createTestDatabase('jobs_oidc_ending');
  await migrateJobsSchema(database.url);
  db = new pg.Pool({ connectionString: database.url });
  // The OpenID client: it records the logout tokens it is sent.
  client = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      logoutTokens.push(new URLSearchParams(body).get('logout_token') ?? '');
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => client.listen(0, '127.0.0.1', resolve));
  identityPort = await freePort();
  worker = await startWorker(
    loadJobsConfig({
      DATABASE_URL: database.url,
      NATS_URL: testNatsUrl(),
      NATS_SUBJECT_PREFIX: prefix,
      REDIS_URL: testRedisUrl(),
      REDIS_KEY_PREFIX: `${prefix}:`,
      SMTP_URL: 'smtp://127.0.0.1:1',
      PUBLIC_APP_URL: 'http://app.example.test',
      METRICS_PORT: '0',
      JOBS_RETRY_BASE_MS: '20',
      JOBS_MAX_DELIVERIES: '2',
      // Identity, which the consumer asks, is not running yet.
      IDENTITY_GRPC_ADDRESS: `127.0.0.1:${identityPort}`,
      GRPC_DEADLINE_MS: '500',
      OIDC_ENABLED: 'true',
      AUTH_JWT_SIGNING_KEYS: testSigningKeys('test', { openIdProvider: true }),
    }),
    silent,
  );
  nc = await connect({ servers: testNatsUrl() });
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await identity?.stop();
  const jsm = await nc?.jetstreamManager();
  for (const stream of [names.jobsStream, names.deadLetterStream, names.eventsStream]) await jsm?.streams.delete(stream).catch(() => undefined);
  await nc?.drain();
  await new Promise((resolve) => client?.close(resolve));
  await db?.end();
  await database?.drop();
});

describe('the oidc_session_ending consumer', () => {
  it('parks an event that does not parse, at once', async () => {
    await publishEvent({ id: randomUUID(), sessionRevoked: { userId: 'not a uuid' } });
    await waitFor(async () => ((await processed('invalid')) === 1 ? true : undefined), { description: 'the malformed event parked' });
  });

  it('keeps retrying past JOBS_MAX_DELIVERIES while identity is unreachable, and tells the client once it is back', async () => {
    const identityConfig = loadIdentityConfig({
      DATABASE_URL: database.url,
      NATS_URL: testNatsUrl(),
      NATS_SUBJECT_PREFIX: prefix,
      REDIS_URL: testRedisUrl(),
      REDIS_KEY_PREFIX: `${prefix}:`,
      GRPC_PORT: String(identityPort),
      ADMIN_GRPC_PORT: '0',
      METRICS_PORT: '0',
    });
    await migrateIdentity(identityConfig, silent);
    // A session that signed in to an OpenID client with a back-channel logout URI.
    const userId = randomUUID();
    const sessionId = 'B'.repeat(22);
    await db.query(`INSERT INTO identity.users (id, handle, email) VALUES ($1, $2, $3)`, [userId, `h${userId.slice(0, 8)}`, `${userId}@example.com`]);
    await db.query(
      `INSERT INTO identity.oidc_session_clients (session_id, client_id, user_id, backchannel_logout_uri, session_required) VALUES ($1, 'grafana', $2, $3, true)`,
      [sessionId, userId, `http://127.0.0.1:${(client.address() as AddressInfo).port}/logout`],
    );
    await publishEvent({
      id: randomUUID(),
      occurredAt: new Date().toISOString(),
      sessionRevoked: { userId, reason: 'logout', sessionIds: [sessionId], keptSessionId: '' },
    });

    await waitFor(async () => ((await processed('retried')) >= 4 ? true : undefined), { description: 'four failed deliveries' });
    expect(await processed('dead_lettered')).toBe(0);

    identity = await startIdentityService(identityConfig, silent);
    await waitFor(async () => ((await processed('completed')) === 1 ? true : undefined), { description: 'the event completed', timeoutMs: 20_000 });
    const token = await waitFor(() => logoutTokens[0], { description: 'the logout token at the client' });
    expect(decodeJwt(token)).toMatchObject({ sub: userId, sid: sessionId, aud: 'grafana' });
    expect(await processed('dead_lettered')).toBe(0);
  });
});
