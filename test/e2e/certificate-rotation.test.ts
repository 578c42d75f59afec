import { X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HealthProbe } from '@latchkey/grpc-kit';
import { createTestCertificateAuthority, waitFor, type CertificateFiles, type TestCertificateAuthority } from '@latchkey/test-kit';
import { units } from '@latchkey/units';
import { ApiClient } from '../support/api-client';
import { PASSWORD, signedInAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';

/**
 * docs/operations.md, "Rotating certificates": the units read their mTLS
 * files again while they run. On a running stack with calls in flight, the
 * test renews every unit's certificate, then rotates the CA (both CAs in the
 * bundle, new certificates from the new CA, the old CA out of the bundle),
 * and no call fails. The files change as the kubelet changes a mounted
 * Secret: a new directory behind the `..data` symlink, swapped at once.
 */
let stack: E2eStack;
let scratch: string;
let caOne: TestCertificateAuthority;
let caTwo: TestCertificateAuthority;
const serving = units.filter((unit) => unit.kind === 'grpc').map((unit) => unit.name);
let generation = 0;

/** The directory a unit reads its files from, as a Secret volume lays it out. */
const unitDirectory = (unit: string) => path.join(scratch, 'mounts', unit);

/** Swaps a unit's files to this certificate and CA bundle in one rename, as the kubelet does. */
function mount(unit: string, certificate: CertificateFiles, caBundle: string): void {
  const directory = unitDirectory(unit);
  generation += 1;
  const version = `..${generation}`;
  mkdirSync(path.join(directory, version), { recursive: true });
  writeFileSync(path.join(directory, version, 'tls.crt'), readFileSync(certificate.certFile));
  writeFileSync(path.join(directory, version, 'tls.key'), readFileSync(certificate.keyFile));
  writeFileSync(path.join(directory, version, 'ca.crt'), caBundle);
  symlinkSync(version, path.join(directory, '..data_tmp'));
  renameSync(path.join(directory, '..data_tmp'), path.join(directory, '..data'));
  for (const file of ['tls.crt', 'tls.key', 'ca.crt']) {
    try {
      symlinkSync(path.join('..data', file), path.join(directory, file));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

const bundleOf = (...authorities: TestCertificateAuthority[]) => authorities.map((authority) => readFileSync(authority.caFile, 'utf8')).join('');

/** Issues every unit a certificate from `authority`, valid `days` (the notAfter tells the generations apart), and mounts it. */
function rotateLeaves(authority: TestCertificateAuthority, days: number, caBundle: string): Map<string, CertificateFiles> {
  const issued = new Map<string, CertificateFiles>();
  for (const unit of units) {
    const files = authority.issue(unit.name, { days, label: `d${days}` });
    issued.set(unit.name, files);
    mount(unit.name, files, caBundle);
  }
  return issued;
}

function rotateBundle(caBundle: string, current: Map<string, CertificateFiles>): void {
  for (const unit of units) mount(unit.name, current.get(unit.name)!, caBundle);
}

async function metricsOf(unit: string): Promise<string> {
  return (await new ApiClient(stack.operationsUrl(unit)).get('/metrics')).text;
}

function gauge(metrics: string, name: string, labels = ''): number | undefined {
  const line = metrics.split('\n').find((candidate) => candidate.startsWith(`${name}{`) && candidate.includes(labels));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** Waits until every unit has loaded `issued` (its certificate's notAfter) and a bundle of `caCount` certificates. */
async function everyUnitLoaded(issued: Map<string, CertificateFiles>, caCount: number): Promise<void> {
  for (const unit of units) {
    const notAfter = Date.parse(new X509Certificate(readFileSync(issued.get(unit.name)!.certFile)).validTo) / 1000;
    await waitFor(
      async () => {
        const metrics = await metricsOf(unit.name);
        const loaded = gauge(metrics, 'grpc_tls_certificate_expiry_timestamp_seconds') === notAfter;
        return loaded && gauge(metrics, 'grpc_tls_ca_certificates', 'bundle="units"') === caCount ? true : undefined;
      },
      { description: `${unit.name} to load its new files` },
    );
  }
}

const keyIdsOf = (metrics: string, name: string, labels = ''): string[] =>
  metrics
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) && line.includes(labels))
    .map((line) => /key_id="([^"]+)"/.exec(line)![1]!);

/**
 * What the alert LatchkeyTrustSplit reads, as every unit exports it: for
 * each CA that issued a unit's certificate (by key identifier), the units
 * whose units bundle does not hold it. Empty when no unit would refuse
 * another's certificate.
 */
async function trustSplits(): Promise<{ issuers: string[]; splits: string[] }> {
  const exported = await Promise.all(units.map(async (unit) => ({ unit: unit.name, metrics: await metricsOf(unit.name) })));
  const issuers = [...new Set(exported.flatMap(({ metrics }) => keyIdsOf(metrics, 'grpc_tls_certificate_issuer_info')))].sort();
  const splits = exported.flatMap(({ unit, metrics }) => {
    const trusted = keyIdsOf(metrics, 'grpc_tls_trusted_ca_info', 'bundle="units"');
    return issuers.filter((issuer) => !trusted.includes(issuer)).map((issuer) => `${unit} does not trust ${issuer}`);
  });
  return { issuers, splits };
}

/** Whether every gRPC unit accepts a new connection presenting `client`, which trusts `caBundle`. */
async function everyServerAccepts(client: CertificateFiles, caBundle: string): Promise<boolean[]> {
  const bundleFile = path.join(scratch, `probe-bundle-${generation}.crt`);
  writeFileSync(bundleFile, caBundle);
  return Promise.all(
    serving.map(async (unit) => {
      const probe = new HealthProbe(`127.0.0.1:${stack.processes.get(unit)!.ports.GRPC_PORT}`, { ...client, caFile: bundleFile });
      try {
        return await probe.serving('', 3_000);
      } finally {
        probe.close();
      }
    }),
  );
}

/**
 * Calls through the gateway to every gRPC unit, over and over, until
 * stopped: a read each of posts, totp, passkeys and oauth, a sign-in
 * (identity, totp) and a post written and deleted (whose content the
 * worker deletes after asking posts). Every answer must be the expected one.
 */
function startLoad(account: Awaited<ReturnType<typeof signedInAccount>>) {
  const failures: string[] = [];
  let rounds = 0;
  let running = true;
  const expect2xx = async (label: string, call: Promise<{ status: number; text: string }>) => {
    const answer = await call.catch((error: unknown) => ({ status: 0, text: String(error) }));
    if (answer.status < 200 || answer.status >= 300) failures.push(`${label}: ${answer.status} ${answer.text.slice(0, 200)}`);
    return answer;
  };
  const anonymous = new ApiClient(stack.gatewayUrl);
  const loop = async (worker: number) => {
    while (running) {
      await expect2xx('posts', anonymous.get(`/v0/posts?author_id=${account.id}`));
      await expect2xx('totp', account.client.get('/v0/auth/totp/status'));
      await expect2xx('passkeys', account.client.get('/v0/auth/passkeys'));
      await expect2xx('oauth', account.client.get('/v0/auth/oauth/connections'));
      if (worker === 0) {
        await expect2xx('identity', new ApiClient(stack.gatewayUrl).post('/v0/auth/login', { email: account.email, password: PASSWORD }));
        const created = await expect2xx('create', account.client.post<{ id: string }>('/v0/posts', { title: 'Rotating', content: `round ${rounds}` }));
        const id = (created as { body?: { id?: string } }).body?.id;
        if (id) await expect2xx('delete', account.client.request('DELETE', `/v0/posts/${id}`));
        rounds += 1;
      }
    }
  };
  const loops = [0, 1].map(loop);
  return {
    failures,
    rounds: () => rounds,
    /** Waits until `count` more sign-in rounds have completed. */
    async moreRounds(count: number): Promise<void> {
      const target = rounds + count;
      await waitFor(() => (rounds >= target || failures.length > 0 ? true : undefined), { description: `${count} more rounds of calls`, timeoutMs: 60_000 });
    },
    async stop(): Promise<void> {
      running = false;
      await Promise.all(loops);
    },
  };
}

beforeAll(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), 'latchkey-rotation-'));
  caOne = createTestCertificateAuthority(path.join(scratch, 'ca-one'), 'rotation-ca-one');
  caTwo = createTestCertificateAuthority(path.join(scratch, 'ca-two'), 'rotation-ca-two');
  const platformCa = createTestCertificateAuthority(path.join(scratch, 'platform'), 'rotation-platform-ca');
  rotateLeaves(caOne, 2, bundleOf(caOne));
  stack = await startE2eStack(
    'rotation',
    {
      // Read the files often and reconnect every second, so that every step is used by new connections within the test.
      GRPC_TLS_RELOAD_INTERVAL_MS: '200',
      GRPC_MAX_CONNECTION_AGE_MS: '1000',
      RATE_LIMIT_IP_MAX: '100000',
      RATE_LIMIT_POST_WRITES: '100000',
      JOBS_RETRY_BASE_MS: '100',
    },
    {
      unitEnv: (unit) => ({
        GRPC_TLS_CERT_FILE: path.join(unitDirectory(unit), 'tls.crt'),
        GRPC_TLS_KEY_FILE: path.join(unitDirectory(unit), 'tls.key'),
        GRPC_TLS_CA_FILE: path.join(unitDirectory(unit), 'ca.crt'),
        ...(unit === 'gateway' || unit === 'identity' ? { PLATFORM_TLS_CA_FILE: platformCa.caFile } : {}),
      }),
    },
  );
}, 90_000);

afterAll(async () => {
  await stack?.destroy();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test('renewed certificates, then a new CA, reach every unit while it serves, and no call fails', async () => {
  const account = await signedInAccount(stack, 'rotation');
  const load = startLoad(account);
  try {
    await load.moreRounds(3);
    const before = await trustSplits();
    expect(before).toEqual({ issuers: [expect.any(String)], splits: [] });

    // 1. Renewal: new certificates from the same CA.
    const renewed = rotateLeaves(caOne, 3, bundleOf(caOne));
    await everyUnitLoaded(renewed, 1);
    await load.moreRounds(3);

    // 2. The new CA joins the bundle; certificates still from the old one.
    rotateBundle(bundleOf(caOne, caTwo), renewed);
    await everyUnitLoaded(renewed, 2);
    await load.moreRounds(3);
    // No step of the procedure leaves a unit distrusting a CA another unit's certificate comes from.
    expect(await trustSplits()).toEqual(before);

    // 3. Certificates from the new CA, trusted by every unit through the overlap.
    const fromNewCa = rotateLeaves(caTwo, 4, bundleOf(caOne, caTwo));
    await everyUnitLoaded(fromNewCa, 2);
    await load.moreRounds(3);
    const afterIssue = await trustSplits();
    expect(afterIssue).toEqual({ issuers: [expect.any(String)], splits: [] });
    expect(afterIssue.issuers).not.toEqual(before.issuers);

    // 4. The old CA leaves the bundle.
    rotateBundle(bundleOf(caTwo), fromNewCa);
    await everyUnitLoaded(fromNewCa, 1);
    expect(await trustSplits()).toEqual(afterIssue);
    // Every server now refuses a certificate of the old CA, and takes one of the new.
    expect(await everyServerAccepts(caOne.issue('gateway', { label: 'late' }), bundleOf(caOne, caTwo))).toEqual(serving.map(() => false));
    expect(await everyServerAccepts(caTwo.issue('gateway', { label: 'probe' }), bundleOf(caTwo))).toEqual(serving.map(() => true));
    // Connections live a second: these rounds run on connections made with the new CA's certificates only.
    await load.moreRounds(5);
  } finally {
    await load.stop();
  }
  expect(load.failures).toEqual([]);
  expect(load.rounds()).toBeGreaterThanOrEqual(17);

  for (const unit of units) {
    const metrics = await metricsOf(unit.name);
    expect({ unit: unit.name, rejected: gauge(metrics, 'grpc_tls_reloads_total', 'outcome="rejected"') }).toEqual({ unit: unit.name, rejected: 0 });
    expect(gauge(metrics, 'grpc_tls_reloads_total', 'outcome="loaded"')).toBeGreaterThanOrEqual(4);
  }
  // The worker's calls to posts (content deletions) never failed either.
  const jobs = await metricsOf('jobs');
  expect(jobs).not.toMatch(/jobs_processed_total\{[^}]*outcome="(retried|dead_lettered)"/);
  expect(stack.allOutput()).not.toMatch(/"msg":"(request failed|rpc failed|tls files refused)/);
}, 240_000);

test('a certificate whose key does not match is refused, and the unit keeps serving with the files it had', async () => {
  const account = await signedInAccount(stack, 'mismatch');
  const renewed = caTwo.issue('posts', { days: 5, label: 'd5' });
  const other = caTwo.issue('posts', { days: 6, label: 'other' });
  // tls.crt of one certificate with tls.key of another: what a torn, non-atomic write would leave.
  mount('posts', { ...renewed, keyFile: other.keyFile }, bundleOf(caTwo));
  const rejected = async () => gauge(await metricsOf('posts'), 'grpc_tls_reloads_total', 'outcome="rejected"') ?? 0;
  await waitFor(async () => ((await rejected()) > 0 ? true : undefined), { description: 'posts to refuse the files' });
  expect(stack.processes.get('posts')!.output()).toContain('tls files refused; the ones in use stay');
  expect((await account.client.get(`/v0/posts?author_id=${account.id}`)).status).toBe(200);
  expect(await everyServerAccepts(caTwo.issue('gateway', { label: 'after-mismatch' }), bundleOf(caTwo))).toEqual(serving.map(() => true));
}, 60_000);

test('a certificate from a CA its peers do not trust shows as a trust split, and its calls are refused', async () => {
  const { issuers } = await trustSplits();
  // Step 2 before step 1: posts presents a certificate of the old CA, which no bundle holds any more.
  const early = caOne.issue('posts', { days: 7, label: 'early' });
  mount('posts', early, bundleOf(caTwo));
  const notAfter = Date.parse(new X509Certificate(readFileSync(early.certFile)).validTo) / 1000;
  await waitFor(async () => (gauge(await metricsOf('posts'), 'grpc_tls_certificate_expiry_timestamp_seconds') === notAfter ? true : undefined), {
    description: 'posts to present the old CA’s certificate',
  });
  const split = await trustSplits();
  const oldCa = split.issuers.find((issuer) => !issuers.includes(issuer))!;
  expect(split.splits.sort()).toEqual(units.map((unit) => `${unit.name} does not trust ${oldCa}`).sort());
  // The gateway, which does not trust it, cannot reach posts on a new connection.
  expect(await everyServerAccepts(caTwo.issue('gateway', { label: 'split' }), bundleOf(caTwo))).toEqual(serving.map((unit) => unit !== 'posts'));
}, 60_000);
