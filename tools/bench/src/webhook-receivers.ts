import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { receiversQuerySchema, receiversStartSchema, type ReceiversCollected } from './webhook-receiver-messages';

/**
 * The webhooks scenario's endpoints: a child process of the bench, so that
 * receiving tens of thousands of deliveries costs the harness's event loop
 * nothing and the load generator's nothing. Each live receiver answers 204
 * at once and keeps, per webhook-id, when the message first arrived and the
 * `timestamp` its body carries; a down endpoint is a port that was free a
 * moment ago and that nothing listens on.
 */

interface FirstReceipt {
  readonly receivedAt: number;
  readonly eventAt: number;
}

const firstReceipts = new Map<string, FirstReceipt>();
let repeats = 0;
let malformed = 0;

function record(id: string | undefined, body: string, receivedAt: number): void {
  if (!id) {
    malformed += 1;
    return;
  }
  if (firstReceipts.has(id)) {
    repeats += 1;
    return;
  }
  let eventAt = Number.NaN;
  try {
    eventAt = Date.parse((JSON.parse(body) as { timestamp?: string }).timestamp ?? '');
  } catch {
    // Counted below as malformed.
  }
  if (Number.isNaN(eventAt)) {
    malformed += 1;
    return;
  }
  firstReceipts.set(id, { receivedAt, eventAt });
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

function receiver(): Server {
  return createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      // The arrival of the whole request, before answering: what a receiver would stamp.
      const receivedAt = Date.now();
      const id = request.headers['webhook-id'];
      record(typeof id === 'string' ? id : undefined, Buffer.concat(chunks).toString('utf8'), receivedAt);
      response.writeHead(204).end();
    });
  });
}

/** A loopback port nothing listens on: bound by the OS, then closed. */
async function freePort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function collected(id: number): ReceiversCollected {
  const delaysMs = new Float64Array(firstReceipts.size);
  let firstEventAt = Number.POSITIVE_INFINITY;
  let lastReceiptAt = 0;
  let index = 0;
  for (const receipt of firstReceipts.values()) {
    delaysMs[index] = receipt.receivedAt - receipt.eventAt;
    index += 1;
    firstEventAt = Math.min(firstEventAt, receipt.eventAt);
    lastReceiptAt = Math.max(lastReceiptAt, receipt.receivedAt);
  }
  return {
    type: 'collected',
    id,
    delaysMs,
    repeats,
    firstEventAt: Number.isFinite(firstEventAt) ? firstEventAt : 0,
    lastReceiptAt,
    malformed,
  };
}

if (require.main === module) {
  if (!process.send) {
    process.stderr.write('webhook-receivers runs as a child of the bench (tools/bench/src/webhook-receiver-process.ts)\n');
    process.exit(2);
  }
  const servers: Server[] = [];
  process.on('message', (message: unknown) => {
    const start = receiversStartSchema.safeParse(message);
    if (start.success) {
      void (async () => {
        const ports: number[] = [];
        for (let index = 0; index < start.data.live; index += 1) {
          const server = receiver();
          servers.push(server);
          ports.push(await listen(server));
        }
        const downPort = await freePort();
        process.send?.({ type: 'ready', liveUrls: ports.map((port) => `http://127.0.0.1:${port}/hooks`), downUrl: `http://127.0.0.1:${downPort}/hooks` });
      })();
      return;
    }
    const query = receiversQuerySchema.safeParse(message);
    if (!query.success) return;
    if (query.data.type === 'count') process.send?.({ type: 'count', id: query.data.id, messages: firstReceipts.size });
    else process.send?.(collected(query.data.id));
  });
  process.on('disconnect', () => process.exit(0));
}
