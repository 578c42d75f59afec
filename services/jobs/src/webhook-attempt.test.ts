import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import type { HostResolver } from '@latchkey/egress-guard';
import { attemptWebhook, type WebhookMessage } from './webhook-attempt';

interface Receiver {
  readonly url: string;
  readonly received: { headers: IncomingHttpHeaders; body: string }[];
  close(): Promise<void>;
}

type Answer = (request: IncomingMessage, response: ServerResponse) => void;

/** A customer's endpoint on loopback: records each request, then answers as told. */
function startReceiver(answer: Answer, host = '127.0.0.1'): Promise<Receiver> {
  const received: Receiver['received'] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      answer(request, response);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return new Promise((resolve) =>
    server.listen(0, host, () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/hooks`,
        received,
        close: () => {
          for (const socket of sockets) socket.destroy();
          return new Promise((done) => server.close(() => done()));
        },
      });
    }),
  );
}

const secret = (): string => `whsec_${randomBytes(24).toString('base64')}`;
const body = JSON.stringify({ type: 'org.member.added', timestamp: '2026-11-28T05:00:00.000Z', data: { organization_id: randomUUID() } });
const messageTo = (url: string, secrets: readonly string[]): WebhookMessage => ({ id: `msg_${randomUUID()}`, url, body, secrets });
const anywhere = { allowInternal: true } as const;
const production = (resolve: HostResolver = () => Promise.reject(new Error('not resolved'))) => ({ allowInternal: false, resolve });

/** Both verifiers a receiver would use; each throws on a bad signature or a stale timestamp. */
function verifyWithBoth(key: string, delivery: { headers: IncomingHttpHeaders; body: string }): void {
  const headers = {
    'webhook-id': String(delivery.headers['webhook-id']),
    'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
    'webhook-signature': String(delivery.headers['webhook-signature']),
  };
  expect(new StandardWebhook(key).verify(delivery.body, headers)).toEqual(JSON.parse(body));
  expect(new SvixWebhook(key).verify(delivery.body, headers)).toEqual(JSON.parse(body));
}

let receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  receivers = [];
});
const receiver = async (answer: Answer, host?: string): Promise<Receiver> => {
  const started = await startReceiver(answer, host);
  receivers.push(started);
  return started;
};

describe('attemptWebhook()', () => {
  it('sends a delivery that standardwebhooks and svix both verify, with the same webhook-id on every attempt', async () => {
    const key = secret();
    const endpoint = await receiver((_request, response) => response.writeHead(204).end());
    const message = messageTo(endpoint.url, [key]);
    const first = await attemptWebhook(message, { timeoutMs: 5_000, egress: anywhere });
    const second = await attemptWebhook(message, { timeoutMs: 5_000, egress: anywhere, at: new Date(Date.now() + 2_000) });
    expect(first).toMatchObject({ status: 'succeeded', responseStatus: 204 });
    expect(second).toMatchObject({ status: 'succeeded', responseStatus: 204 });
    expect(endpoint.received).toHaveLength(2);
    for (const delivery of endpoint.received) {
      expect(delivery.headers['webhook-id']).toBe(message.id);
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(delivery.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(delivery.body).toBe(body);
      verifyWithBoth(key, delivery);
    }
    // Signed anew per attempt: the timestamp is the attempt's.
    expect(endpoint.received[0]!.headers['webhook-timestamp']).not.toBe(endpoint.received[1]!.headers['webhook-timestamp']);
  });

  it('signs with both secrets during a rotation, so that a receiver holding either one accepts it, and no other secret does', async () => {
    const [current, previous] = [secret(), secret()];
    const endpoint = await receiver((_request, response) => response.writeHead(200).end());
    await attemptWebhook(messageTo(endpoint.url, [current, previous]), { timeoutMs: 5_000, egress: anywhere });
    const [delivery] = endpoint.received;
    expect(String(delivery!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    verifyWithBoth(current, delivery!);
    verifyWithBoth(previous, delivery!);
    expect(() => verifyWithBoth(secret(), delivery!)).toThrow();
  });

  it('counts a non-2xx answer as failed with its status, and follows no redirect', async () => {
    const elsewhere = await receiver((_request, response) => response.writeHead(200).end());
    const endpoint = await receiver((request, response) => {
      if (request.url === '/hooks') response.writeHead(307, { location: elsewhere.url }).end();
      else response.writeHead(500).end();
    });
    await expect(attemptWebhook(messageTo(endpoint.url, [secret()]), { timeoutMs: 5_000, egress: anywhere })).resolves.toMatchObject({
      status: 'failed',
      responseStatus: 307,
    });
    await expect(attemptWebhook(messageTo(endpoint.url.replace('/hooks', '/broken'), [secret()]), { timeoutMs: 5_000, egress: anywhere })).resolves.toMatchObject({
      status: 'failed',
      responseStatus: 500,
    });
    expect(elsewhere.received).toEqual([]);
  });

  it('gives up on an endpoint that accepts the connection but never answers, after the timeout', async () => {
    const endpoint = await receiver(() => undefined);
    const attempt = await attemptWebhook(messageTo(endpoint.url, [secret()]), { timeoutMs: 300, egress: anywhere });
    expect(attempt).toMatchObject({ status: 'failed', problem: 'no answer within 300 ms' });
    expect(attempt.responseStatus).toBeUndefined();
    expect(attempt.durationMs).toBeGreaterThanOrEqual(250);
    expect(attempt.durationMs).toBeLessThan(3_000);
    expect(endpoint.received).toHaveLength(1);
  });

  it('counts a refused connection as failed without a status', async () => {
    const endpoint = await receiver(() => undefined);
    await endpoint.close();
    receivers = [];
    const attempt = await attemptWebhook(messageTo(endpoint.url, [secret()]), { timeoutMs: 5_000, egress: anywhere });
    expect(attempt.status).toBe('failed');
    expect(attempt.responseStatus).toBeUndefined();
    expect(attempt.problem).toMatch(/ECONNREFUSED/);
  });

  it('in production refuses loopback, link-local metadata, IPv6 loopback, IPv4-mapped loopback and names that resolve to them, connecting to none', async () => {
    const v4 = await receiver((_request, response) => response.writeHead(204).end());
    const v6 = await receiver((_request, response) => response.writeHead(204).end(), '::1');
    const port = new URL(v4.url).port;
    const targets: [string, HostResolver | undefined][] = [
      [v4.url, undefined],
      ['http://169.254.169.254/latest/meta-data/', undefined],
      [v6.url, undefined],
      [`http://[::ffff:127.0.0.1]:${port}/hooks`, undefined],
      [`http://hooks.customer.example:${port}/hooks`, () => Promise.resolve(['127.0.0.1'])],
      [`http://hooks.customer.example:${port}/hooks`, () => Promise.resolve(['93.184.215.14', '::ffff:127.0.0.1'])],
    ];
    for (const [url, resolve] of targets) {
      const attempt = await attemptWebhook(messageTo(url, [secret()]), { timeoutMs: 5_000, egress: production(resolve) });
      expect(attempt.status).toBe('refused');
      expect(attempt.problem).toMatch(/loopback|cloud metadata/);
    }
    expect(v4.received).toEqual([]);
    expect(v6.received).toEqual([]);
  });

  it('rethrows when the job itself is aborted, since that is no failure of the endpoint', async () => {
    const endpoint = await receiver(() => undefined);
    const job = new AbortController();
    const attempt = attemptWebhook(messageTo(endpoint.url, [secret()]), { timeoutMs: 5_000, egress: anywhere, signal: job.signal });
    setTimeout(() => job.abort(), 100);
    await expect(attempt).rejects.toThrow();
  });
});
