import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { identityV1, sessionsV1 } from '@latchkey/contracts';
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
import { units } from '@latchkey/units';
import { ApiClient } from '../support/api-client';
import { PASSWORD, signedInAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { natsAuthorizationBlock, natsPasswordVariable } from '../support/nats-authorization';

/**
 * The whole system as the production values deploy it, each unit with an
 * identity of its own. docs/operations.md, "Mutual TLS": a certificate named
 * for the unit; each gRPC service takes calls only from the units the
 * catalogue says call it (identity: oauth, jobs and the gateway).
 * docs/operations.md, "NATS permissions": a NATS user per unit, allowed only
 * its own subjects.
 */
let stack: E2eStack;
let nats: OwnNatsServer;
let scratch: string;
const natsPassword = (unit: string) => `nats-password-of-${unit}`;
const certificates = new Map<string, CertificateFiles>();
let foreign: CertificateFiles;

function tlsVariables(files: CertificateFiles): Record<string, string> {
  return { GRPC_TLS_CERT_FILE: files.certFile, GRPC_TLS_KEY_FILE: files.keyFile, GRPC_TLS_CA_FILE: files.caFile };
}

beforeAll(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), 'latchkey-mtls-'));
  const authority = createTestCertificateAuthority(path.join(scratch, 'ca'));
  for (const unit of units) certificates.set(unit.name, authority.issue(unit.name));
  // A service beside Latchkey, allowed to introspect sessions.
  certificates.set('billing', authority.issue('billing'));
  // The right name, from a CA the units do not trust.
  foreign = createTestCertificateAuthority(path.join(scratch, 'foreign'), 'foreign-ca').issue('gateway');
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
        ...(unit === 'gateway' ? { SESSIONS_GRPC_ALLOWED_CALLERS: 'billing' } : {}),
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
    expect((await account.client.request('DELETE', '/v0/users/me', { json: { password: PASSWORD } })).status).toBe(204);
    // The worker asks identity, then has posts, totp and oauth delete the data: every call passes with its certificate.
    const anonymous = new ApiClient(stack.gatewayUrl);
    await waitFor(async () => ((await anonymous.get(postUrl)).status === 404 ? true : undefined), { description: 'the cleanup to delete the post' });
    const completedCleanups = async () => {
      const metrics = await (await fetch(`${stack.operationsUrl('jobs')}/metrics`)).text();
      return Number(/jobs_processed_total\{[^}]*job="account_cleanup"[^}]*outcome="completed"[^}]*\} (\d+)/.exec(metrics)?.[1] ?? 0);
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
    expect(refusal).toContain('caller \\"posts\\" is not one of oauth, passkeys, jobs, gateway');
  });

  it('lets the services listed in SESSIONS_GRPC_ALLOWED_CALLERS introspect sessions, and no unit', async () => {
    const address = `127.0.0.1:${stack.processes.get('gateway')!.ports.GRPC_PORT}`;
    const asBilling = createTestServiceClient(sessionsV1.SessionsServiceService, address, certificates.get('billing'));
    const asPosts = createTestServiceClient(sessionsV1.SessionsServiceService, address, certificates.get('posts'));
    try {
      expect(await asBilling.introspectSession({ token: 'A'.repeat(43) })).toEqual({ active: false });
      expect(await statusOf(asPosts.introspectSession({ token: 'A'.repeat(43) }))).toBe(GrpcStatus.PERMISSION_DENIED);
    } finally {
      asBilling.close();
      asPosts.close();
    }
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
