import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { execFile } from 'node:child_process';
import { adminV1, identityV1, oidcV1, orgsV1, sessionsV1 } from '@latchkey/contracts';
import { AppError } from '@latchkey/errors';
import { busUsers, connectToBus, topology } from '@latchkey/job-streams';
import {
  createTestCertificateAuthority,
  createTestServiceClient,
  startOwnNatsServer,
  waitFor,
  type CertificateFiles,
  type OwnNatsServer,
} from '@latchkey/test-kit';
import { methodCallersOf, units } from '@latchkey/units';
import { ApiClient } from '../support/api-client';
import { totpCode } from '../support/authenticator';
import { PASSWORD, signedInAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { natsAuthorizationBlock, natsPasswordVariable } from '../support/nats-authorization';

/**
 * The whole system as the production values deploy it, each unit with an
 * identity of its own. docs/operations.md, "Mutual TLS": a certificate named
 * for the unit; each gRPC service answers each RPC only to the units the
 * catalogue says call it (packages/units, `methodCallersOf`); the
 * platform APIs (sessions.v1, admin.v1,
 * orgs.v1's OrganizationAccessService) listen apart and take only
 * certificates of the platform clients' CA, by their subject alternative
 * name. docs/operations.md, "NATS permissions": a NATS user per unit,
 * allowed only its own subjects.
 */
let stack: E2eStack;
let nats: OwnNatsServer;
let scratch: string;
const natsPassword = (unit: string) => `nats-password-of-${unit}`;
const certificates = new Map<string, CertificateFiles>();
let foreign: CertificateFiles;
let platformCaFile: string;
/** Platform clients: a service beside Latchkey, the operators' command, a support desk allowed one RPC, a name nobody listed. */
const platform = new Map<string, CertificateFiles>();
const BILLING = 'spiffe://example.test/billing';
const ADMIN_CLI = 'urn:latchkey:admin-cli';
const SUPPORT_DESK = 'spiffe://example.test/support-desk';

function tlsVariables(files: CertificateFiles): Record<string, string> {
  return { GRPC_TLS_CERT_FILE: files.certFile, GRPC_TLS_KEY_FILE: files.keyFile, GRPC_TLS_CA_FILE: files.caFile };
}

beforeAll(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), 'latchkey-mtls-'));
  const authority = createTestCertificateAuthority(path.join(scratch, 'ca'));
  for (const unit of units) certificates.set(unit.name, authority.issue(unit.name));
  // The right name, from a CA the units do not trust.
  foreign = createTestCertificateAuthority(path.join(scratch, 'foreign'), 'foreign-ca').issue('gateway');
  const platformAuthority = createTestCertificateAuthority(path.join(scratch, 'platform'), 'platform-ca');
  platformCaFile = platformAuthority.caFile;
  platform.set('billing', platformAuthority.issue('billing', { subjectAltNames: [`URI:${BILLING}`] }));
  platform.set('admin-cli', platformAuthority.issue('admin-cli', { subjectAltNames: [`URI:${ADMIN_CLI}`] }));
  platform.set('support-desk', platformAuthority.issue('support-desk', { subjectAltNames: [`URI:${SUPPORT_DESK}`] }));
  // Named like a unit, in the Subject CN, which platform listeners do not read.
  platform.set('gateway', platformAuthority.issue('gateway', { subjectAltNames: ['URI:spiffe://example.test/unlisted'] }));
  nats = await startOwnNatsServer({
    config: natsAuthorizationBlock('unitid', [...busUsers]),
    env: Object.fromEntries(busUsers.map((unit) => [natsPasswordVariable(unit), natsPassword(unit)])),
  });
  stack = await startE2eStack(
    'unitid',
    { NATS_URL: nats.url },
    {
      natsSubjectPrefix: 'unitid',
      unitEnv: (unit) => ({
        ...tlsVariables(certificates.get(unit)!),
        ...((busUsers as readonly string[]).includes(unit) ? { NATS_USER: unit, NATS_PASSWORD: natsPassword(unit) } : {}),
        ...(unit === 'gateway' ? { PLATFORM_TLS_CA_FILE: platformCaFile, SESSIONS_GRPC_ALLOWED_CALLERS: BILLING } : {}),
        ...(unit === 'identity'
          ? {
              PLATFORM_TLS_CA_FILE: platformCaFile,
              ADMIN_GRPC_ALLOWED_CALLERS: JSON.stringify({ '*': [ADMIN_CLI], FindUser: [SUPPORT_DESK] }),
              ORGS_GRPC_ALLOWED_CALLERS: BILLING,
            }
          : {}),
      }),
    },
  );
}, 90_000);

afterAll(async () => {
  await stack?.destroy();
  await nats?.destroy();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

function identityAs(files: CertificateFiles | undefined) {
  return createTestServiceClient(identityV1.IdentityServiceService, `127.0.0.1:${stack.processes.get('identity')!.ports.GRPC_PORT}`, files);
}

function oidcAs(files: CertificateFiles | undefined) {
  return createTestServiceClient(oidcV1.OidcServiceService, `127.0.0.1:${stack.processes.get('identity')!.ports.GRPC_PORT}`, files);
}

/** The gRPC status a call failed with (the cause of the AppError the client raised). */
async function statusOf(call: Promise<unknown>): Promise<number | undefined> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof AppError)) return undefined;
  return (error.cause as { code?: number } | undefined)?.code;
}

describe('every unit with an identity of its own', () => {
  it('runs every flow across the units and the bus: sign-up mail, posts, search, and the account cleanup the worker does', async () => {
    const account = await signedInAccount(stack, 'mtls');
    const created = await account.client.post('/v0/posts', { title: 'Over TLS', content: 'every hop checks who calls' });
    expect(created.status).toBe(201);
    // posts queued the index job, the worker indexed it.
    await waitFor(async () => ((await account.client.get('/v0/search/posts?q=hop')).body.items as unknown[] | undefined)?.length ? true : undefined, {
      description: 'the post to be indexed',
    });
    const postUrl = `/v0/posts/${created.body.id as string}`;
    // totp tells identity, with its certificate, that the account may have TOTP on: a password alone no longer signs in.
    const setup = (await account.client.post<{ setup_token: string; secret: string }>('/v0/auth/totp/setup')).body;
    expect((await account.client.post('/v0/auth/totp/enable', { setup_token: setup.setup_token, code: totpCode(setup.secret, -1) })).status).toBe(200);
    expect((await new ApiClient(stack.gatewayUrl).post('/v0/auth/login', { email: account.email, password: PASSWORD })).body).toMatchObject({ totp_required: true });
    expect((await account.client.request('DELETE', '/v0/users/me', { json: { password: PASSWORD, code: totpCode(setup.secret) } })).status).toBe(204);
    // The worker asks identity, then has posts, totp and oauth delete the data: every call passes with its certificate.
    const anonymous = new ApiClient(stack.gatewayUrl);
    await waitFor(async () => ((await anonymous.get(postUrl)).status === 404 ? true : undefined), { description: 'the cleanup to delete the post' });
    const completedCleanups = async () => {
      const metrics = await (await fetch(`${stack.operationsUrl('jobs')}/metrics`)).text();
      return Number(/jobs_processed_total\{[^}]*job_type="account_cleanup"[^}]*outcome="completed"[^}]*\} (\d+)/.exec(metrics)?.[1] ?? 0);
    };
    await waitFor(async () => ((await completedCleanups()) > 0 ? true : undefined), { description: 'the account cleanup to complete' });
  });

  it('answers a unit the call graph allows, and refuses one it does not with PERMISSION_DENIED', async () => {
    const userId = '00000000-0000-4000-8000-000000000000';
    const asJobs = identityAs(certificates.get('jobs'));
    const asPosts = identityAs(certificates.get('posts'));
    try {
      // The handler ran: no such user.
      await expect(asJobs.getUser({ userId })).rejects.toMatchObject({ code: 'auth:unauthorized' });
      expect(await statusOf(asPosts.getUser({ userId }))).toBe(GrpcStatus.PERMISSION_DENIED);
    } finally {
      asJobs.close();
      asPosts.close();
    }
    const refusal = await waitFor(
      () => stack.processes.get('identity')!.output().split('\n').find((line) => line.includes('call refused: caller not allowed')),
      { description: 'identity to log the refusal' },
    );
    expect(refusal).toContain(`caller \\"posts\\" is not one of ${methodCallersOf('identity.v1.IdentityService').GetUser!.join(', ')}`);
  });

  it('answers each RPC only to the units that call it: the credential ledger to its owners, the OpenID artifacts to the gateway, ended sessions to the worker', async () => {
    const account = await signedInAccount(stack, 'permrpc');
    const as = (unit: string) => ({ identity: identityAs(certificates.get(unit)), oidc: oidcAs(certificates.get(unit)) });
    const clients = { totp: as('totp'), posts: as('posts'), oauth: as('oauth'), gateway: as('gateway'), jobs: as('jobs') };
    const artifact = (id: string) => ({
      kind: 'Grant',
      id,
      payloadJson: JSON.stringify({ accountId: account.id, clientId: 'permrpc-app' }),
      expiresAt: new Date(Date.now() + 60_000),
    });
    const ended = { userId: account.id, sessionIds: [], keptSessionId: '', endedAt: new Date() };
    // What a taken-over unit would tell the ledger: the account holds no TOTP, so that its sign-ins skip the second step.
    const noTotp = { kind: identityV1.CredentialKind.CREDENTIAL_KIND_TOTP, accounts: [{ userId: account.id, credentials: [] }] };
    try {
      // A taken-over unit that reaches identity cannot settle the credential ledger, write the OpenID Provider's tokens or end its sessions.
      expect(await statusOf(clients.posts.identity.settleCredentials(noTotp))).toBe(GrpcStatus.PERMISSION_DENIED);
      expect(await statusOf(clients.gateway.identity.settleCredentials(noTotp))).toBe(GrpcStatus.PERMISSION_DENIED);
      expect(
        await statusOf(clients.jobs.identity.reserveCredentialRemoval({ userId: account.id, kind: identityV1.CredentialKind.CREDENTIAL_KIND_PASSKEY, reference: account.id })),
      ).toBe(GrpcStatus.PERMISSION_DENIED);
      expect(await statusOf(clients.posts.oidc.saveArtifact(artifact('permrpc-posts')))).toBe(GrpcStatus.PERMISSION_DENIED);
      expect(await statusOf(clients.oauth.oidc.saveArtifact(artifact('permrpc-oauth')))).toBe(GrpcStatus.PERMISSION_DENIED);
      expect(await statusOf(clients.jobs.oidc.saveArtifact(artifact('permrpc-jobs')))).toBe(GrpcStatus.PERMISSION_DENIED);
      expect(await statusOf(clients.gateway.oidc.endSessions(ended))).toBe(GrpcStatus.PERMISSION_DENIED);
      // Nor does a unit get what only another unit's work needs: the worker cannot delete an account, the gateway purge.
      expect(await statusOf(clients.jobs.identity.deleteUser({ userId: account.id }))).toBe(GrpcStatus.PERMISSION_DENIED);
      expect(await statusOf(clients.gateway.identity.purgeUnverifiedUsers({ registeredBefore: new Date(), limit: 1 }))).toBe(GrpcStatus.PERMISSION_DENIED);
      // Nor may one owner of credentials write another's kind: oauth cannot make the ledger forget a TOTP.
      expect(await statusOf(clients.oauth.identity.settleCredentials(noTotp))).toBe(GrpcStatus.INVALID_ARGUMENT);
      // The rightful callers are answered.
      expect(await clients.totp.identity.settleCredentials(noTotp)).toEqual({ takeBacks: [] });
      await clients.gateway.oidc.saveArtifact(artifact('permrpc-gateway'));
      const found = (id: string) => clients.gateway.oidc.findArtifact({ kind: 'Grant', id, userCode: '', withGrantAndAccount: false, otherKinds: [] });
      expect((await found('permrpc-gateway')).found).toBe(true);
      // What the refused callers sent was never written.
      expect((await found('permrpc-posts')).found).toBe(false);
      await clients.jobs.oidc.endSessions(ended);
    } finally {
      for (const client of Object.values(clients)) {
        client.identity.close();
        client.oidc.close();
      }
    }
    const refusal = await waitFor(
      () => stack.processes.get('identity')!.output().split('\n').find((line) => line.includes('call refused') && line.includes('/oidc.v1.OidcService/SaveArtifact')),
      { description: 'identity to log the refused SaveArtifact' },
    );
    expect(refusal).toContain(`is not one of ${methodCallersOf('oidc.v1.OidcService').SaveArtifact!.join(', ')}`);
  });

  it('lets the platform clients listed in SESSIONS_GRPC_ALLOWED_CALLERS introspect sessions, and no unit', async () => {
    const address = `127.0.0.1:${stack.processes.get('gateway')!.ports.GRPC_PORT}`;
    const as = (files: CertificateFiles | undefined) =>
      createTestServiceClient(sessionsV1.SessionsServiceService, address, files && { ...files, caFile: certificates.get('gateway')!.caFile });
    const clients = {
      billing: as(platform.get('billing')),
      unlisted: as(platform.get('gateway')),
      unit: as(certificates.get('jobs')),
    };
    try {
      expect(await clients.billing.introspectSession({ token: 'A'.repeat(43) })).toEqual({ active: false });
      // A platform certificate whose name is not listed: the CN says "gateway", which counts for nothing here.
      expect(await statusOf(clients.unlisted.introspectSession({ token: 'A'.repeat(43) }))).toBe(GrpcStatus.PERMISSION_DENIED);
      // A unit's certificate, from the units' CA: refused in the handshake.
      expect(await statusOf(clients.unit.introspectSession({ token: 'A'.repeat(43) }))).toBe(GrpcStatus.UNAVAILABLE);
    } finally {
      for (const client of Object.values(clients)) client.close();
    }
  });

  it('serves admin.v1 on its own port only, to the platform clients its allow-list names, per RPC', async () => {
    const identity = stack.processes.get('identity')!;
    const admin = (files: CertificateFiles | undefined, port = identity.ports.ADMIN_GRPC_PORT) =>
      createTestServiceClient(adminV1.AdminServiceService, `127.0.0.1:${port}`, files && { ...files, caFile: certificates.get('identity')!.caFile }, {
        operator: 'unit-identity-e2e',
      });
    const clients = {
      cli: admin(platform.get('admin-cli')),
      desk: admin(platform.get('support-desk')),
      billing: admin(platform.get('billing')),
      unit: admin(certificates.get('identity')),
      onUnitPort: createTestServiceClient(adminV1.AdminServiceService, `127.0.0.1:${identity.ports.GRPC_PORT}`, certificates.get('gateway'), {
        operator: 'unit-identity-e2e',
      }),
    };
    const someone = { userId: '00000000-0000-4000-8000-000000000000' };
    try {
      await expect(clients.cli.findUser({ id: someone.userId })).rejects.toMatchObject({ code: 'user:not_found' });
      await expect(clients.cli.disableUser({ ...someone, reason: 'test' })).rejects.toMatchObject({ code: 'user:not_found' });
      // FindUser is listed for the desk, DisableUser is not.
      await expect(clients.desk.findUser({ id: someone.userId })).rejects.toMatchObject({ code: 'user:not_found' });
      expect(await statusOf(clients.desk.disableUser({ ...someone, reason: 'test' }))).toBe(GrpcStatus.PERMISSION_DENIED);
      expect(await statusOf(clients.billing.findUser({ id: someone.userId }))).toBe(GrpcStatus.PERMISSION_DENIED);
      // No unit's certificate opens the admin port, and the units' port does not serve admin.v1 at all.
      expect(await statusOf(clients.unit.findUser({ id: someone.userId }))).toBe(GrpcStatus.UNAVAILABLE);
      expect(await statusOf(clients.onUnitPort.findUser({ id: someone.userId }))).toBe(GrpcStatus.UNIMPLEMENTED);
    } finally {
      for (const client of Object.values(clients)) client.close();
    }
    const refusal = await waitFor(
      () => identity.output().split('\n').find((line) => line.includes('call refused') && line.includes('DisableUser')),
      { description: 'identity to log the refused admin call' },
    );
    expect(refusal).toContain(SUPPORT_DESK);
  });

  it('answers CheckPermission on the platform listener to the clients ORGS_GRPC_ALLOWED_CALLERS names, and to no other', async () => {
    const owner = await signedInAccount(stack, 'orgcheck');
    const created = await owner.client.post<{ id: string }>('/v0/orgs', { name: 'Checked', slug: `checked-${owner.id.slice(0, 8)}` });
    expect(created.status).toBe(201);
    const identity = stack.processes.get('identity')!;
    const access = (files: CertificateFiles | undefined, port = identity.ports.ADMIN_GRPC_PORT) =>
      createTestServiceClient(orgsV1.OrganizationAccessServiceService, `127.0.0.1:${port}`, files && { ...files, caFile: certificates.get('identity')!.caFile });
    const clients = {
      billing: access(platform.get('billing')),
      cli: access(platform.get('admin-cli')),
      unit: access(certificates.get('gateway')),
      onUnitPort: createTestServiceClient(orgsV1.OrganizationAccessServiceService, `127.0.0.1:${identity.ports.GRPC_PORT}`, certificates.get('gateway')),
    };
    const question = { userId: owner.id, organizationId: created.body.id, permission: 'invoices:read' };
    try {
      expect(await clients.billing.checkPermission(question)).toEqual({ allowed: true, role: 'owner' });
      // A platform client that admin.v1 lets in, but the organisations' allow-list does not name.
      expect(await statusOf(clients.cli.checkPermission(question))).toBe(GrpcStatus.PERMISSION_DENIED);
      // A unit's certificate, from the units' CA: refused in the handshake; the units' port does not serve it at all.
      expect(await statusOf(clients.unit.checkPermission(question))).toBe(GrpcStatus.UNAVAILABLE);
      expect(await statusOf(clients.onUnitPort.checkPermission(question))).toBe(GrpcStatus.UNIMPLEMENTED);
    } finally {
      for (const client of Object.values(clients)) client.close();
    }
    const refusal = await waitFor(
      () => identity.output().split('\n').find((line) => line.includes('call refused') && line.includes('CheckPermission')),
      { description: 'identity to log the refused CheckPermission' },
    );
    expect(refusal).toContain(ADMIN_CLI);
  });

  it('latchkey-admin reaches admin.v1 with the operator’s platform certificate', async () => {
    const account = await signedInAccount(stack, 'admincli');
    const cli = path.resolve(__dirname, '../../services/identity/dist/admin-cli.js');
    const files = platform.get('admin-cli')!;
    const output = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [cli, '--json', '--operator', 'ada', 'users', 'find', '--email', account.email],
        {
          env: {
            PATH: process.env.PATH,
            ADMIN_GRPC_ADDRESS: `127.0.0.1:${stack.processes.get('identity')!.ports.ADMIN_GRPC_PORT}`,
            ADMIN_TLS_CERT_FILE: files.certFile,
            ADMIN_TLS_KEY_FILE: files.keyFile,
            GRPC_TLS_CA_FILE: certificates.get('identity')!.caFile,
          },
        },
        (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
      ),
    );
    expect(JSON.parse(output.trim())).toMatchObject({ id: account.id, email: account.email });
  });

  it('keeps each unit to its own subjects on the bus: posts cannot forge the user.deleted of identity', async () => {
    const names = topology('unitid');
    const posts = await connectToBus({ NATS_URL: nats.url, NATS_USER: 'posts', NATS_PASSWORD: natsPassword('posts') }, { name: 'e2e-posts' });
    try {
      const forged = new TextEncoder().encode(JSON.stringify({ user_id: '00000000-0000-4000-8000-000000000000' }));
      await expect(posts.jetstream().publish(names.subject('jobs.user.deleted'), forged, { timeout: 2_000 })).rejects.toMatchObject({
        code: 'PERMISSIONS_VIOLATION',
      });
    } finally {
      await posts.close();
    }
    await expect(connectToBus({ NATS_URL: nats.url }, { name: 'e2e-anonymous' })).rejects.toMatchObject({ code: 'AUTHORIZATION_VIOLATION' });
  });

  it('refuses a certificate from another CA, and a caller without one, in the handshake', async () => {
    const userId = '00000000-0000-4000-8000-000000000000';
    const impostor = identityAs(foreign);
    const plaintext = identityAs(undefined);
    try {
      expect(await statusOf(impostor.getUser({ userId }))).toBe(GrpcStatus.UNAVAILABLE);
      expect(await statusOf(plaintext.getUser({ userId }))).toBe(GrpcStatus.UNAVAILABLE);
    } finally {
      impostor.close();
      plaintext.close();
    }
  });
});
