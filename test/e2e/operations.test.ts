import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ApiClient } from '../support/api-client';
import { PASSWORD, signedInAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { waitFor } from '@latchkey/test-kit';
import { calleesOf, unitNamed, units } from '@latchkey/units';

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
  /** Every gRPC unit of the catalogue and the service its health check names, as the chart lists them. */
  const grpcUnits = units.filter((unit) => unit.kind === 'grpc');
  const grpcTargets = () => grpcUnits.map((unit) => `127.0.0.1:${stack.processes.get(unit.name)!.ports.GRPC_PORT}=${unit.grpcService!}`).join(',');
  const gatewayDependencies = [...calleesOf(unitNamed('gateway')), 'redis'];

  const dependenciesUrl = () => `${stack.operationsUrl('gateway')}/dependencies`;

  it('passes when the gateway reaches Redis and every unit, and every unit serves its gRPC service', async () => {
    const result = await run({ CHECK_DEPENDENCIES_URL: dependenciesUrl(), CHECK_GRPC_TARGETS: grpcTargets() });
    expect(result.lines.map((line) => line.check).filter((check) => check.startsWith('gateway → ')).sort()).toEqual(
      gatewayDependencies.map((name) => `gateway → ${name}`).sort(),
    );
    expect(result.lines).toHaveLength(gatewayDependencies.length + grpcUnits.length);
    expect(result.lines.filter((line) => !line.ok)).toEqual([]);
    expect(result.code).toBe(0);
  });

  it('fails, naming the check, when a unit does not answer or serves something else', async () => {
    const identity = `127.0.0.1:${stack.processes.get('identity')!.ports.GRPC_PORT}`;
    const result = await run({
      CHECK_DEPENDENCIES_URL: dependenciesUrl(),
      CHECK_GRPC_TARGETS: `${identity}=posts.v1.PostsService,127.0.0.1:1=identity.v1.IdentityService`,
      CHECK_TIMEOUT_MS: '1000',
    });
    expect(result.lines.filter((line) => !line.ok).map((line) => line.check)).toEqual([`${identity} posts.v1.PostsService`, '127.0.0.1:1 identity.v1.IdentityService']);
    expect(result.code).toBe(1);
  });
});

/**
 * The local addresses of the listening TCP sockets on `ports`, from the
 * kernel's tables (/proc/net/tcp and tcp6 hold them in hex; state 0A is
 * LISTEN), whichever process holds them.
 */
function listeningAddresses(ports: ReadonlySet<number>): { port: number; address: string }[] {
  const found: { port: number; address: string }[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state !== '0A' || !local) continue;
      const [hexAddress, hexPort] = local.split(':') as [string, string];
      const port = parseInt(hexPort, 16);
      if (!ports.has(port)) continue;
      // IPv4 in little-endian byte order; IPv6 as four little-endian words.
      const address =
        hexAddress.length === 8
          ? (hexAddress.match(/../g) ?? []).reverse().map((byte) => parseInt(byte, 16)).join('.')
          : (hexAddress.match(/.{8}/g) ?? []).map((word) => (word.match(/../g) ?? []).reverse().join('')).join('');
      found.push({ port, address });
    }
  }
  return found;
}

describe('the local stack', () => {
  it('binds every port of every unit to 127.0.0.1 only', () => {
    const ports = new Set([...stack.processes.values()].flatMap((unit) => Object.values(unit.ports)));
    expect(ports.size).toBeGreaterThanOrEqual(14);
    const bound = listeningAddresses(ports);
    expect(new Set(bound.map(({ port }) => port))).toEqual(ports);
    expect(bound.filter(({ address }) => address !== '127.0.0.1')).toEqual([]);
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

  it('exports no metric label that Prometheus sets on a scraped target, so no alert loses one to exported_<label>', async () => {
    const account = await signedInAccount(stack, 'metrics');
    await account.client.get('/v0/posts');
    const targetLabels = ['job', 'instance', 'namespace', 'pod', 'service', 'container', 'endpoint'];
    const labelNames = new Map<string, Set<string>>();
    for (const unit of stack.processes.keys()) {
      const text = (await new ApiClient(stack.operationsUrl(unit)).get('/metrics')).text;
      const names = new Set([...text.matchAll(/[{,]([a-zA-Z_][a-zA-Z0-9_]*)="/g)].map(([, name]) => name!));
      labelNames.set(unit, names);
      expect({ unit, clashes: targetLabels.filter((label) => names.has(label)) }).toEqual({ unit, clashes: [] });
      expect(text).toMatch(new RegExp(`\\bunit="${unit}"`));
    }
    // What the alerts group by: the gRPC service of a call, and the kind of a job.
    expect(labelNames.get('identity')).toContain('grpc_service');
    const jobs = await waitFor(async () => {
      const text = (await new ApiClient(stack.operationsUrl('jobs')).get('/metrics')).text;
      return /jobs_processed_total\{[^}]*job_type="mail"/.test(text) ? text : undefined;
    }, { description: 'the sign-up mail to be counted' });
    expect(jobs).not.toMatch(/jobs_processed_total\{[^}]*\bjob="/);
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
        '/v0/auth/change-email',
        '/v0/auth/change-password',
        '/v0/auth/cancel-email-change',
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
        '/v0/oidc/interactions/{uid}',
        '/v0/oidc/interactions/{uid}/confirm',
        '/v0/oidc/interactions/{uid}/deny',
        '/v0/oidc/device/verify',
        '/v0/oidc/grants',
        '/v0/oidc/grants/{client_id}',
        '/v0/orgs',
        '/v0/orgs/{org_id}',
        '/v0/orgs/{org_id}/roles',
        '/v0/orgs/{org_id}/roles/{name}',
        '/v0/orgs/{org_id}/members',
        '/v0/orgs/{org_id}/members/{user_id}',
        '/v0/orgs/{org_id}/invitations',
        '/v0/orgs/{org_id}/invitations/{id}',
        '/v0/invitations/lookup',
        '/v0/invitations/accept',
        '/v0/auth/session/org',
        '/v0/orgs/{org_id}/domains',
        '/v0/orgs/{org_id}/domains/{domain}',
        '/v0/orgs/{org_id}/domains/{domain}/verify',
        '/v0/orgs/{org_id}/scim/tokens',
        '/v0/orgs/{org_id}/scim/tokens/{token_id}',
        '/v0/orgs/{org_id}/scim/groups',
        '/v0/orgs/{org_id}/scim/groups/{group_id}',
        '/v0/orgs/{org_id}/sso/connections',
        '/v0/orgs/{org_id}/sso/connections/{id}',
        '/v0/orgs/{org_id}/webhooks',
        '/v0/orgs/{org_id}/webhooks/{id}',
        '/v0/orgs/{org_id}/webhooks/{id}/deliveries',
        '/v0/orgs/{org_id}/webhooks/{id}/deliveries/{message_id}/retry',
        '/v0/orgs/{org_id}/webhooks/{id}/rotate-secret',
        '/v0/orgs/{org_id}/webhooks/{id}/test',
        '/v0/auth/sso/discover',
        '/v0/auth/sso/start',
        '/v0/sso/saml/{connection_id}/metadata',
        '/v0/sso/saml/{connection_id}/acs',
        '/v0/sso/oidc/{connection_id}/callback',
        '/v0/orgs/{org_id}/audit-log',
        '/v0/orgs/{org_id}/audit-log/export',
      ].sort(),
    );
    expect(Object.keys(body.components.schemas)).toEqual(
      expect.arrayContaining([
        'User',
        'Me',
        'ActiveOrganization',
        'Session',
        'Problem',
        'Post',
        'PostSummary',
        'ActionLog',
        'Passkey',
        'PasskeyCreationOptions',
        'PasskeyRequestOptions',
        'OidcInteraction',
        'OidcGrantList',
        'Organization',
        'OrganizationRole',
        'OrganizationMember',
        'OrganizationInvitation',
        'InvitationLookup',
      ]),
    );
    expect(body.paths['/v0/users']?.post).toMatchObject({ requestBody: expect.anything() });
    expect(Object.keys(body.paths['/v0/users/me'] ?? {}).sort()).toEqual(['delete', 'get']);
  });
});

describe('a service outage', () => {
  it('answers 503 service:unavailable where identity is needed while it is down, and the gateway stays ready', async () => {
    const account = await signedInAccount(stack, 'outage');
    // A signed-in request: the gateway now knows the account's state, which stands in while identity is away.
    expect((await account.client.get('/v0/users/me')).status).toBe(200);
    const identity = stack.processes.get('identity')!;
    process.kill(identity.pid!, 'SIGKILL');
    const client = new ApiClient(stack.gatewayUrl);
    const operations = new ApiClient(stack.operationsUrl('gateway'));
    const dependencies = await waitFor(async () => {
      const answer = await operations.get<Record<string, string>>('/dependencies');
      return answer.body.identity === 'down' ? answer : undefined;
    });
    expect(dependencies.status).toBe(503);
    expect(dependencies.body).toMatchObject({ identity: 'down', posts: 'up', redis: 'up' });
    expect((await operations.get('/metrics')).text).toMatch(/dependency_up\{[^}]*dependency="identity"[^}]*\} 0/);
    // One unit down must not take the gateway out of its Service: every other route still works.
    expect((await client.get('/readyz')).status).toBe(200);
    expect((await operations.get('/readyz')).status).toBe(200);
    expect((await client.get('/v0/posts')).status).toBe(200);
    const change = await account.client.post('/v0/auth/change-email', { current_password: PASSWORD, new_email: 'new@example.com' });
    expect(change.status).toBe(503);
    expect(change.body).toMatchObject({ code: 'service:unavailable', status: 503 });
    // The account view kept in the session still answers, on the account state the gateway knew (docs/operations.md, "What each route needs").
    expect((await account.client.get('/v0/users/me')).status).toBe(200);
    const register = await client.post('/v0/users', { handle: 'during_outage', email: 'outage@example.com', password: 'long enough pass' });
    expect(register.status).toBe(503);
    expect(register.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|identity/);
  });
});

