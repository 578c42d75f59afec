import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { signingKeysSchema, type SigningAlgorithm } from '@latchkey/config';
import type { HostResolver } from '@latchkey/egress-guard';
import { startRequestContext } from '@latchkey/grpc-kit';
import type { BackchannelLogoutJob } from '@latchkey/jobs-contract';
import { createLogger } from '@latchkey/telemetry';
import { testSigningKeys } from '@latchkey/test-kit';
import { backchannelLogoutJob } from './backchannel-logout';

/** A client's logout endpoint on one loopback address: the Host it was asked for and the token it got, per request. */
interface Client {
  readonly port: number;
  readonly received: { host: string | undefined; token: string }[];
  readonly server: Server;
}

function startClient(address: string, port = 0): Promise<Client> {
  const received: Client['received'] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ host: request.headers.host, token: new URLSearchParams(body).get('logout_token') ?? '' });
      response.writeHead(200).end();
    });
  });
  return new Promise((resolve) => server.listen(port, address, () => resolve({ port: (server.address() as AddressInfo).port, received, server })));
}

/** A DNS that answers `first`, then `later` to anyone who asks again. */
function rebindingResolver(first: string, later: string): HostResolver & { calls: number } {
  const resolver = Object.assign(
    () => {
      resolver.calls += 1;
      return Promise.resolve([resolver.calls === 1 ? first : later]);
    },
    { calls: 0 },
  );
  return resolver;
}

const keys = signingKeysSchema.parse(testSigningKeys());
const logger = createLogger({ service: 'test', level: 'silent' });
const jobFor = (uri: string): BackchannelLogoutJob => ({
  client_id: 'grafana',
  backchannel_logout_uri: uri,
  user_id: randomUUID(),
  session_id: 'S'.repeat(22),
  session_required: true,
  signing_alg: 'EdDSA',
});

function run(job: BackchannelLogoutJob, production: boolean, resolve: HostResolver, budgetMs = 5_000) {
  const started = startRequestContext({ requestId: 'backchannel-test', logger, deadline: Date.now() + budgetMs });
  const definition = backchannelLogoutJob({ keys, issuer: 'https://id.example.test', egress: { allowInternal: !production, resolve } });
  return definition.handle(job, { ...started.context, jobId: 'job-1' }).finally(() => started.end());
}

let clients: Client[] = [];

afterEach(async () => {
  await Promise.all(clients.map((client) => new Promise((done) => client.server.close(done))));
  clients = [];
});

describe('backchannelLogoutJob', () => {
  it('posts the logout token to the address its check resolved, not to where DNS points by then', async () => {
    const checked = await startClient('127.0.0.2');
    const rebound = await startClient('127.0.0.3', checked.port);
    clients.push(checked, rebound);
    const resolve = rebindingResolver('127.0.0.2', '127.0.0.3');
    const job = jobFor(`http://rp.example.test:${checked.port}/backchannel-logout`);

    expect(await run(job, false, resolve)).toBe('completed');
    expect(resolve.calls).toBe(1);
    expect(rebound.received).toEqual([]);
    expect(checked.received).toHaveLength(1);
    expect(checked.received[0]!.host).toBe(`rp.example.test:${checked.port}`);
    expect(decodeJwt(checked.received[0]!.token)).toMatchObject({ iss: 'https://id.example.test', aud: 'grafana', sub: job.user_id, sid: job.session_id });
  });

  it('in production refuses a URI whose name resolves inside, and never follows a rebinding to this machine', async () => {
    const local = await startClient('127.0.0.1');
    clients.push(local);
    const uri = `http://rp.example.test:${local.port}/backchannel-logout`;
    expect(await run(jobFor(uri), true, rebindingResolver('10.0.0.8', '10.0.0.8'))).toBe('refused');
    expect(await run(jobFor(`http://127.0.0.1:${local.port}/`), true, rebindingResolver('8.8.8.8', '8.8.8.8'))).toBe('refused');
    expect(await run(jobFor(`http://[::ffff:127.0.0.1]:${local.port}/`), true, rebindingResolver('8.8.8.8', '8.8.8.8'))).toBe('refused');

    // Checked public (TEST-NET-3, which leads nowhere from here), then this machine: the delivery fails and is retried.
    const resolve = rebindingResolver('203.0.113.10', '127.0.0.1');
    await expect(run(jobFor(uri), true, resolve, 500)).rejects.toThrow();
    expect(resolve.calls).toBe(1);
    expect(local.received).toEqual([]);
  });

  it.each<[SigningAlgorithm, string]>([
    ['RS256', 'rsa'],
    ['ES256', 'ec'],
    ['EdDSA', 'ed'],
  ])('signs the logout token of a %s client with that algorithm, verifiable with the published keys', async (alg, kid) => {
    const everyKind = signingKeysSchema.parse(
      JSON.stringify([
        { kid: 'ed', ...generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) },
        { kid: 'rsa', ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }) },
        { kid: 'ec', ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) },
      ]),
    );
    const client = await startClient('127.0.0.1');
    clients.push(client);
    const job = { ...jobFor(`http://127.0.0.1:${client.port}/logout`), signing_alg: alg };
    const started = startRequestContext({ requestId: 'backchannel-test', logger, deadline: Date.now() + 5_000 });
    const definition = backchannelLogoutJob({ keys: everyKind, issuer: 'https://id.example.test', egress: { allowInternal: true, resolve: () => Promise.resolve(['127.0.0.1']) } });
    await expect(definition.handle(job, { ...started.context, jobId: 'job-1' }).finally(() => started.end())).resolves.toBe('completed');

    const token = client.received[0]!.token;
    expect(decodeProtectedHeader(token)).toMatchObject({ alg, kid, typ: 'logout+jwt' });
    const published = createLocalJWKSet({ keys: everyKind.map((key) => ({ ...key.publicJwk })) });
    const { payload } = await jwtVerify(token, published, { issuer: 'https://id.example.test', audience: 'grafana', typ: 'logout+jwt', algorithms: [alg] });
    expect(payload).toMatchObject({ sub: job.user_id, sid: job.session_id, events: { 'http://schemas.openid.net/event/backchannel-logout': {} } });
  });
});
