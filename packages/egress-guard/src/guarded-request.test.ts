import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer, globalAgent } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestCertificateAuthority } from '@latchkey/test-kit';
import { EgressRefusedError, checkTarget, sendGuarded, type HostResolver } from './guarded-request';

/** What a local server was sent. */
interface Received {
  readonly host: string | undefined;
  readonly body: string;
}

interface LocalServer {
  readonly port: number;
  readonly received: Received[];
  close(): Promise<void>;
}

type Answer = (request: IncomingMessage, response: ServerResponse) => void;

const noContent: Answer = (_request, response) => response.writeHead(204).end();

function listen(server: Server, address: string, port: number, received: Received[]): Promise<LocalServer> {
  return new Promise((resolve) =>
    server.listen(port, address, () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        received,
        close: () => new Promise((done) => server.close(() => done())),
      }),
    ),
  );
}

function recording(answer: Answer, received: Received[]) {
  return (request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ host: request.headers.host, body });
      answer(request, response);
    });
  };
}

function startServer(address: string, port = 0, answer: Answer = noContent): Promise<LocalServer> {
  const received: Received[] = [];
  return listen(createServer(recording(answer, received)), address, port, received);
}

/** A resolver that answers `answers` in turn (the last one from then on) and counts its calls. */
function changingResolver(...answers: (readonly string[])[]): HostResolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = (hostname: string) => {
    calls.push(hostname);
    return Promise.resolve(answers[Math.min(calls.length, answers.length) - 1] ?? []);
  };
  return Object.assign(resolve, { calls });
}

const post = { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'logout' } as const;
const production = (resolve: HostResolver) => ({ allowInternal: false, resolve });
const neverResolve: HostResolver = () => Promise.reject(new Error('an IP address is not resolved'));

let servers: LocalServer[] = [];

afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

describe('sendGuarded()', () => {
  it('refuses a host name that resolves to an internal address, and connects to nothing', async () => {
    const local = await startServer('127.0.0.1');
    servers.push(local);
    for (const answer of [['127.0.0.1'], ['10.0.0.7'], ['8.8.8.8', '127.0.0.1'], ['::ffff:127.0.0.1']]) {
      const resolve = changingResolver(answer);
      const refused = sendGuarded(`http://client.example.test:${local.port}/logout`, post, production(resolve));
      await expect(refused).rejects.toBeInstanceOf(EgressRefusedError);
      expect(resolve.calls).toEqual(['client.example.test']);
    }
    expect(local.received).toEqual([]);
  });

  it('refuses internal addresses written in the URL, in every form the URL parser reads, without resolving them', async () => {
    const local = await startServer('127.0.0.1');
    servers.push(local);
    const port = String(local.port);
    for (const url of [
      `http://127.0.0.1:${port}/`,
      `http://2130706433:${port}/`,
      `http://0x7f.1:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://[::1]:${port}/`,
      'http://169.254.169.254/latest/meta-data/',
      'https://[fd00:ec2::254]/',
      'http://100.100.100.200/',
    ]) {
      await expect(sendGuarded(url, post, production(neverResolve))).rejects.toBeInstanceOf(EgressRefusedError);
    }
    expect(local.received).toEqual([]);
  });

  it('connects to the address it checked, not to a later DNS answer', async () => {
    // The rebinding: a public answer for the check, then this machine for whoever asks again.
    const local = await startServer('127.0.0.1');
    servers.push(local);
    const resolve = changingResolver(['203.0.113.10'], ['127.0.0.1']);
    const attempt = sendGuarded(`http://rebind.example.test:${local.port}/logout`, { ...post, signal: AbortSignal.timeout(500) }, production(resolve));
    // 203.0.113.10 (TEST-NET-3) leads nowhere from here: the attempt fails, and nothing reaches this machine.
    await expect(attempt).rejects.toThrow();
    expect(resolve.calls).toEqual(['rebind.example.test']);
    expect(local.received).toEqual([]);
  });

  it('sends to the first resolved address, with the URL’s host, when internal addresses are allowed', async () => {
    const checked = await startServer('127.0.0.2');
    const later = await startServer('127.0.0.3', checked.port);
    servers.push(checked, later);
    const resolve = changingResolver(['127.0.0.2'], ['127.0.0.3']);
    const answer = await sendGuarded(`http://client.example.test:${checked.port}/logout?x=1`, post, { allowInternal: true, resolve });
    expect(answer).toEqual({ status: 204, address: '127.0.0.2' });
    expect(checked.received).toEqual([{ host: `client.example.test:${checked.port}`, body: 'logout' }]);
    expect(later.received).toEqual([]);
    expect(resolve.calls).toHaveLength(1);
  });

  it('answers a redirect as its status, never following it', async () => {
    const inside = await startServer('127.0.0.3');
    const redirecting = await startServer('127.0.0.2', 0, (_request, response) =>
      response.writeHead(307, { location: `http://127.0.0.3:${inside.port}/` }).end(),
    );
    servers.push(inside, redirecting);
    const answer = await sendGuarded(`http://client.example.test:${redirecting.port}/`, post, { allowInternal: true, resolve: changingResolver(['127.0.0.2']) });
    expect(answer.status).toBe(307);
    expect(inside.received).toEqual([]);
  });

  it('checks the server’s certificate against the URL’s host name, not the address it connects to', async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'egress-guard-'));
    const authority = createTestCertificateAuthority(directory);
    const files = authority.issue('client', { subjectAltNames: ['DNS:client.example.test'] });
    const received: Received[] = [];
    const tls = createTlsServer({ cert: readFileSync(files.certFile), key: readFileSync(files.keyFile) }, recording(noContent, received));
    const server = await listen(tls, '127.0.0.2', 0, received);
    servers.push(server);
    const trusted = globalAgent.options.ca;
    globalAgent.options.ca = readFileSync(authority.caFile);
    try {
      const resolve = changingResolver(['127.0.0.2']);
      const named = await sendGuarded(`https://client.example.test:${server.port}/`, post, { allowInternal: true, resolve });
      expect(named.status).toBe(204);
      const misnamed = sendGuarded(`https://other.example.test:${server.port}/`, post, { allowInternal: true, resolve });
      await expect(misnamed).rejects.toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
      expect(received).toHaveLength(1);
    } finally {
      globalAgent.options.ca = trusted;
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('refuses what is not http(s)', async () => {
    await expect(sendGuarded('file:///etc/passwd', post, { allowInternal: true })).rejects.toThrow(TypeError);
    await expect(sendGuarded('ftp://example.test/', post, { allowInternal: true })).rejects.toThrow(TypeError);
  });
});

describe('checkTarget()', () => {
  it('names the refused address and its kind, for written addresses and for names that resolve to one', async () => {
    const cases: [string, readonly string[], string, string][] = [
      ['http://127.0.0.1/hook', [], '127.0.0.1', 'loopback'],
      ['http://169.254.169.254/latest/meta-data/', [], '169.254.169.254', 'cloud metadata'],
      ['http://[::1]/hook', [], '::1', 'loopback'],
      ['http://[::ffff:127.0.0.1]/hook', [], '::ffff:7f00:1', 'loopback (IPv4-mapped)'],
      ['https://hooks.example.test/hook', ['93.184.215.14', '10.1.2.3'], '10.1.2.3', 'private'],
    ];
    for (const [url, answer, address, reason] of cases) {
      const refused = await checkTarget(url, production(changingResolver(answer))).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(EgressRefusedError);
      expect(refused).toMatchObject({ address, reason });
    }
  });

  it('answers the first address of a public name, and anything outside production', async () => {
    await expect(checkTarget('https://hooks.example.test/a', production(changingResolver(['93.184.215.14'])))).resolves.toMatchObject({
      hostname: 'hooks.example.test',
      address: '93.184.215.14',
    });
    await expect(checkTarget('http://127.0.0.1:9/a', { allowInternal: true, resolve: neverResolve })).resolves.toMatchObject({ address: '127.0.0.1' });
  });
});
