import { spawn } from 'node:child_process';
import path from 'node:path';
import { ApiClient } from '../support/api-client';
import { PASSWORD, signedInAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { waitFor } from '@latchkey/test-kit';

let stack: E2eStack;

beforeAll(async () => {
  stack = await startE2eStack('operations');
}, 60_000);

afterAll(async () => {
  await stack?.destroy();
});

describe('the connection check helm test runs', () => {
  const run = (env: Record<string, string>) =>
    new Promise<{ code: number | null; lines: { check: string; ok: boolean }[] }>((resolve, reject) => {
      const child = spawn(process.execPath, [path.resolve(__dirname, '../../gateway/dist/connection-check.js')], {
        env: { PATH: process.env.PATH, ...env },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, lines: output.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as { check: string; ok: boolean }) }));
    });
  const grpcTargets = () =>
    ['identity', 'oauth', 'totp', 'posts', 'passkeys']
      .map((unit) => `127.0.0.1:${stack.processes.get(unit)!.ports.GRPC_PORT}=${unit}.v1.${unit === 'oauth' ? 'OAuth' : unit[0]!.toUpperCase() + unit.slice(1)}Service`)
      .join(',');

  it('passes when the gateway is ready and every unit serves its gRPC service', async () => {
    const result = await run({ CHECK_READY_URL: `${stack.gatewayUrl}/readyz`, CHECK_GRPC_TARGETS: grpcTargets() });
    expect(result.lines).toHaveLength(6);
    expect(result.lines.filter((line) => !line.ok)).toEqual([]);
    expect(result.code).toBe(0);
  });

  it('fails, naming the check, when a unit does not answer or serves something else', async () => {
    const identity = `127.0.0.1:${stack.processes.get('identity')!.ports.GRPC_PORT}`;
    const result = await run({
      CHECK_READY_URL: `${stack.gatewayUrl}/readyz`,
      CHECK_GRPC_TARGETS: `${identity}=posts.v1.PostsService,127.0.0.1:1=identity.v1.IdentityService`,
      CHECK_TIMEOUT_MS: '1000',
    });
    expect(result.lines.filter((line) => !line.ok).map((line) => line.check)).toEqual([`${identity} posts.v1.PostsService`, '127.0.0.1:1 identity.v1.IdentityService']);
    expect(result.code).toBe(1);
  });
});

// After the connection check: a test below stops identity for good.
describe('operations endpoints', () => {
  it('reports liveness and readiness on the public port, and Prometheus metrics only on the operations port', async () => {
    const client = new ApiClient(stack.gatewayUrl);
    expect((await client.get('/healthz')).status).toBe(200);
    expect((await client.get('/readyz')).body).toEqual({ status: 'ready' });
    await client.get('/v0/users/me');
    const hidden = await client.get('/metrics');
    expect(hidden.status).toBe(404);
    expect(hidden.headers.get('content-type')).toMatch(/^application\/problem\+json/);

    const operations = new ApiClient(stack.operationsUrl('gateway'));
    expect((await operations.get('/healthz')).status).toBe(200);
    expect((await operations.get('/readyz')).status).toBe(200);
    const metrics = await operations.get('/metrics');
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(metrics.text).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/v0\/users\/me"[^}]*status_code="401"/);
    expect(metrics.text).toMatch(/process_resident_memory_bytes/);
  });

  it('serves an OpenAPI 3.1 document of every /v0 route with named schemas', async () => {
    const { body } = await new ApiClient(stack.gatewayUrl).get<{
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, unknown> };
    }>('/v0/openapi.json');
    expect(body.openapi).toBe('3.1.0');
    expect(Object.keys(body.paths).sort()).toEqual(
      [
        '/v0/auth/cancel-email-change',
        '/v0/auth/change-email',
        '/v0/auth/change-password',
        '/v0/auth/confirm-email-change',
        '/v0/auth/forgot-password',
        '/v0/auth/login',
        '/v0/auth/reauthenticate',
        '/v0/auth/logout',
        '/v0/auth/resend-verification-email',
        '/v0/auth/reset-password',
        '/v0/auth/sessions',
        '/v0/auth/sessions/{id}',
        '/v0/auth/token',
        '/v0/auth/verify-email',
        '/v0/users',
        '/v0/users/me',
        '/v0/users/me/action-logs',
        '/v0/posts',
        '/v0/posts/{id}',
        '/v0/search/posts',
        '/v0/auth/totp/setup',
        '/v0/auth/totp/enable',
        '/v0/auth/totp/status',
        '/v0/auth/totp/verify',
        '/v0/auth/totp/backup-codes/regenerate',
        '/v0/auth/totp/disable',
        '/v0/auth/oauth/{provider}/authorize',
        '/v0/auth/oauth/{provider}/login',
        '/v0/auth/oauth/{provider}/reauthenticate',
        '/v0/auth/oauth/{provider}/link',
        '/v0/auth/oauth/connections',
        '/v0/auth/oauth/providers',
        '/v0/auth/oauth/connections/unlink',
        '/v0/auth/complete-signup',
        '/v0/auth/passkeys',
        '/v0/auth/passkeys/{id}',
        '/v0/auth/passkeys/registration/options',
        '/v0/auth/passkeys/registration/verify',
        '/v0/auth/passkeys/authentication/options',
        '/v0/auth/passkeys/authentication/verify',
      ].sort(),
    );
    expect(Object.keys(body.components.schemas)).toEqual(expect.arrayContaining(['User', 'Session', 'Problem', 'Post', 'PostSummary', 'ActionLog', 'Passkey', 'PasskeyCreationOptions', 'PasskeyRequestOptions']));
    expect(body.paths['/v0/users']?.post).toMatchObject({ requestBody: expect.anything() });
    expect(Object.keys(body.paths['/v0/users/me'] ?? {}).sort()).toEqual(['delete', 'get']);
  });
});

describe('a service outage', () => {
  it('answers 503 service:unavailable while identity is down, and readiness says so', async () => {
    const account = await signedInAccount(stack, 'outage');
    const identity = stack.processes.get('identity')!;
    process.kill(identity.pid!, 'SIGKILL');
    const client = new ApiClient(stack.gatewayUrl);
    await waitFor(async () => ((await client.get('/readyz')).status === 503 ? true : undefined));
    const change = await account.client.post('/v0/auth/change-email', { current_password: PASSWORD, new_email: 'new@example.com' });
    expect(change.status).toBe(503);
    expect(change.body).toMatchObject({ code: 'service:unavailable', status: 503 });
    // The account view kept in the session still answers: it needs no service.
    expect((await account.client.get('/v0/users/me')).status).toBe(200);
    const register = await client.post('/v0/users', { handle: 'during_outage', email: 'outage@example.com', password: 'long enough pass' });
    expect(register.status).toBe(503);
    expect(register.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|identity/);
  });
});

