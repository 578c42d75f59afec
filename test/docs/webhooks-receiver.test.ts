// docs/webhooks.md shows receivers how to verify a delivery in three lines.
// People copy them as they are: this test runs them, as written in the
// guide, in an HTTP receiver that the jobs worker's own delivery code posts
// to, so that the guide and the signature can only change together.
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { runInNewContext } from 'node:vm';
import * as standardwebhooks from 'standardwebhooks';
import ts from 'typescript';
import { attemptWebhook, webhookSignature, type WebhookMessage } from '../../services/jobs/src/webhook-attempt';

const guide = readFileSync(path.resolve(__dirname, '../../docs/webhooks.md'), 'utf8');
const section = guide.slice(guide.indexOf('## Verifying a delivery'));
const example = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? '';

/** The three lines, run with the request's raw body and headers: the parsed delivery, or what the library threw. */
function runExample(secret: string, rawBody: Buffer, headers: IncomingHttpHeaders): unknown {
  const { outputText } = ts.transpileModule(`${example}\nexports.delivery = delivery;`, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
  });
  const exported: { delivery?: unknown } = {};
  const requireOnly = (name: string) => {
    if (name !== 'standardwebhooks') throw new Error(`the example requires ${name}`);
    return standardwebhooks;
  };
  runInNewContext(outputText, { exports: exported, require: requireOnly, process: { env: { LATCHKEY_WEBHOOK_SECRET: secret } }, rawBody, headers });
  return exported.delivery;
}

interface Receiver {
  readonly url: string;
  /** What the example answered for each request: the delivery, or the error's name. */
  readonly outcomes: unknown[];
  close(): Promise<void>;
}

/** A receiver holding `secret`: 204 when the example accepts the request, 400 when it throws. */
function startReceiver(secret: string): Promise<Receiver> {
  const outcomes: unknown[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        outcomes.push(runExample(secret, Buffer.concat(chunks), request.headers));
        response.writeHead(204).end();
      } catch (error) {
        outcomes.push((error as Error).name);
        response.writeHead(400).end();
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}/hook`, outcomes, close: () => new Promise((done) => server.close(() => done())) });
    }),
  );
}

const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;
const delivery = { type: 'org.member.added', timestamp: '2026-11-28T09:12:44.201Z', data: { organizationId: randomUUID(), userId: randomUUID(), role: 'member' } };
const messageTo = (url: string, secrets: readonly string[]): WebhookMessage => ({ id: `msg_${randomUUID()}`, url, body: JSON.stringify(delivery), secrets });
const send = (message: WebhookMessage, at?: Date) => attemptWebhook(message, { timeoutMs: 5_000, egress: { allowInternal: true }, ...(at ? { at } : {}) });

let receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  receivers = [];
});
async function receiverWith(secret: string): Promise<Receiver> {
  const receiver = await startReceiver(secret);
  receivers.push(receiver);
  return receiver;
}

test('the guide shows three lines: the import, the secret, and the call that verifies', () => {
  const lines = example.trim().split('\n');
  expect(lines).toHaveLength(3);
  expect(lines[0]).toBe("import { Webhook } from 'standardwebhooks';");
  expect(lines[2]).toContain('new Webhook(secret).verify(rawBody, headers)');
});

test('accepts a delivery as the jobs worker sends it, and answers its body', async () => {
  const secret = newSecret();
  const receiver = await receiverWith(secret);
  expect(await send(messageTo(receiver.url, [secret]))).toMatchObject({ status: 'succeeded', responseStatus: 204 });
  expect(receiver.outcomes).toEqual([delivery]);
});

test('accepts either secret while a rotation has both signing', async () => {
  const [current, previous] = [newSecret(), newSecret()];
  const updated = await receiverWith(current);
  const notYet = await receiverWith(previous);
  expect(await send(messageTo(updated.url, [current, previous]))).toMatchObject({ status: 'succeeded' });
  expect(await send(messageTo(notYet.url, [current, previous]))).toMatchObject({ status: 'succeeded' });
  expect([...updated.outcomes, ...notYet.outcomes]).toEqual([delivery, delivery]);
});

test('refuses a delivery signed with another secret, or signed too long ago', async () => {
  const secret = newSecret();
  const receiver = await receiverWith(secret);
  expect(await send(messageTo(receiver.url, [newSecret()]))).toMatchObject({ status: 'failed', responseStatus: 400 });
  expect(await send(messageTo(receiver.url, [secret]), new Date(Date.now() - 10 * 60_000))).toMatchObject({ status: 'failed', responseStatus: 400 });
  expect(receiver.outcomes).toEqual(['WebhookVerificationError', 'WebhookVerificationError']);
});

test('refuses a body changed after it was signed', async () => {
  const secret = newSecret();
  const receiver = await receiverWith(secret);
  const message = messageTo(receiver.url, [secret]);
  const at = new Date();
  const response = await fetch(receiver.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': message.id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': webhookSignature(message, at),
    },
    body: message.body.replace('"member"', '"owner"'),
  });
  expect(response.status).toBe(400);
  expect(receiver.outcomes).toEqual(['WebhookVerificationError']);
});
