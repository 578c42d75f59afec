import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { identityV1 } from '@latchkey/contracts';
import { AppError } from '@latchkey/errors';
import { createTestCertificateAuthority, createTestServiceClient, waitFor, type CertificateFiles } from '@latchkey/test-kit';
import { units } from '@latchkey/units';
import { ApiClient } from '../support/api-client';
import { PASSWORD, signedInAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';

/**
 * docs/operations.md, "Mutual TLS": every unit with a certificate of its
 * own, named for it; each gRPC service takes calls only from the units the
 * catalogue says call it (identity: oauth, jobs and the gateway).
 */
let stack: E2eStack;
let scratch: string;
const certificates = new Map<string, CertificateFiles>();
let foreign: CertificateFiles;

function tlsVariables(files: CertificateFiles): Record<string, string> {
  return { GRPC_TLS_CERT_FILE: files.certFile, GRPC_TLS_KEY_FILE: files.keyFile, GRPC_TLS_CA_FILE: files.caFile };
}

beforeAll(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), 'latchkey-mtls-'));
  const authority = createTestCertificateAuthority(path.join(scratch, 'ca'));
  for (const unit of units) certificates.set(unit.name, authority.issue(unit.name));
  // The right name, from a CA the units do not trust.
  foreign = createTestCertificateAuthority(path.join(scratch, 'foreign'), 'foreign-ca').issue('gateway');
  stack = await startE2eStack('mtls', {}, (unit) => tlsVariables(certificates.get(unit)!));
}, 90_000);

afterAll(async () => {
  await stack?.destroy();
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

describe('mutual TLS with a certificate per unit', () => {
  it('runs every flow across the units: sign-up, posts, and the account cleanup the worker does', async () => {
    const account = await signedInAccount(stack, 'mtls');
    const created = await account.client.post('/v0/posts', { title: 'Over TLS', content: 'every hop checks who calls' });
    expect(created.status).toBe(201);
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
    const identityLog = stack.processes.get('identity')!.output();
    expect(identityLog).toContain('call refused: caller not allowed');
    expect(identityLog).toContain('caller \\"posts\\" is not one of oauth, jobs, gateway');
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
