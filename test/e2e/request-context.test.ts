import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { startProcess, startSilentServer, waitFor, type ManagedProcess, type SilentServer } from '@latchkey/test-kit';
import { ApiClient } from '../support/api-client';
import { mailedToken, signedInAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';

/**
 * The request context end to end: one request id in the logs of every unit
 * a request touches, and a budget that a slow dependency cannot outlast.
 * The object store here accepts connections and never answers.
 */
const BUDGET_MS = 300;

let stack: E2eStack;
let silentStore: SilentServer;
let shortGateway: ManagedProcess;
let shortGatewayUrl: string;

function jsonLines(output: string): Record<string, unknown>[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function linesWithRequestId(unit: string, requestId: string): Record<string, unknown>[] {
  return jsonLines(stack.processes.get(unit)!.output()).filter((line) => line.request_id === requestId);
}

beforeAll(async () => {
  silentStore = await startSilentServer();
  stack = await startE2eStack('request-context', {
    // Answered gRPC calls are logged at debug level only.
    LOG_LEVEL: 'debug',
    S3_ENDPOINT: `http://127.0.0.1:${silentStore.port}`,
    S3_FORCE_PATH_STYLE: 'true',
    S3_ACCESS_KEY_ID: 'silent',
    S3_SECRET_ACCESS_KEY: 'silent-store-secret',
  });
  // A second gateway in front of the same services and sessions, whose requests have 300 ms.
  const address = (unit: string) => `127.0.0.1:${stack.processes.get(unit)!.ports.GRPC_PORT}`;
  shortGateway = startProcess('gateway', process.execPath, [path.join(__dirname, '../../gateway/dist/main.js')], {
    cwd: path.join(__dirname, '../..'),
    env: {
      ...stack.env,
      GATEWAY_PORT: '0',
      GRPC_PORT: '0',
      METRICS_PORT: '0',
      GRPC_DEADLINE_MS: String(BUDGET_MS),
      IDENTITY_GRPC_ADDRESS: address('identity'),
      OAUTH_GRPC_ADDRESS: address('oauth'),
      TOTP_GRPC_ADDRESS: address('totp'),
      POSTS_GRPC_ADDRESS: address('posts'),
    },
  });
  await shortGateway.waitForOutput(/"msg":"ready"/, 30_000);
  const ready = jsonLines(shortGateway.output()).find((line) => line.msg === 'ready')!;
  shortGatewayUrl = `http://127.0.0.1:${String(ready.port)}`;
}, 90_000);

afterAll(async () => {
  await shortGateway?.stop();
  await stack?.destroy();
  await silentStore?.close();
});

describe('one request context through every hop', () => {
  it('puts the request id of one HTTP request in the logs of the gateway, identity and the jobs worker', async () => {
    const requestId = `e2e-${randomUUID()}`;
    const client = new ApiClient(stack.gatewayUrl, { 'x-request-id': requestId });
    const email = `trace.${randomUUID().slice(0, 8)}@example.com`;
    const registered = await client.post('/v0/users', {
      handle: `trace_${randomUUID().slice(0, 8)}`,
      email,
      password: 'correct horse battery staple',
    });
    expect(registered.status).toBe(201);
    expect(registered.headers.get('x-request-id')).toBe(requestId);
    // The verification mail is sent by the worker from the job identity queued in the request.
    await mailedToken(stack, email, 'verify-email');

    expect(linesWithRequestId('gateway', requestId)).toContainEqual(expect.objectContaining({ msg: 'request completed' }));
    expect(linesWithRequestId('identity', requestId)).toContainEqual(
      expect.objectContaining({ msg: 'rpc completed', rpc: '/identity.v1.IdentityService/RegisterUser' }),
    );
    // The worker logs the job done after its ack, which may come just after the mail arrived.
    await waitFor(
      () => (linesWithRequestId('jobs', requestId).some((line) => line.msg === 'job done' && line.job === 'mail') ? true : undefined),
      { description: "the worker's job done line with the request id" },
    );
  });

  it('answers 503 within the budget when a dependency hangs, and the service stops and writes nothing', async () => {
    const account = await signedInAccount(stack, 'budget');
    const client = new ApiClient(shortGatewayUrl);
    client.sessionCookie = account.client.sessionCookie;

    const started = Date.now();
    const response = await client.post('/v0/posts', { title: 'Never stored', content: 'The store never answers.' });
    const elapsedMs = Date.now() - started;

    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ code: 'service:unavailable' });
    // The budget, plus what a loaded two-core machine adds to a round trip and a timer;
    // far below the 10 s the store's own request timeout would take.
    expect(elapsedMs).toBeLessThan(BUDGET_MS + 500);

    // The posts handler saw its signal abort and ended the call, instead of waiting on the store.
    // Its line may reach the pipe just after the gateway's answer: both come at the deadline.
    const requestId = response.headers.get('x-request-id')!;
    const aborted = await waitFor(() => linesWithRequestId('posts', requestId).find((line) => line.msg === 'rpc aborted'), {
      description: "posts' rpc aborted line",
    });
    expect(aborted).toMatchObject({ rpc: '/posts.v1.PostsService/CreatePost', aborted: true });
    // What was left of the budget when posts received the call, and a late timer's slack.
    expect(aborted.ms).toBeLessThan(BUDGET_MS + 200);

    const db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
    try {
      const { rows } = await db.query('SELECT count(*)::int AS n FROM posts.posts WHERE author_id = $1', [account.id]);
      expect(rows[0].n).toBe(0);
    } finally {
      await db.end();
    }
  });
});
