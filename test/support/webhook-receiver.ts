import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';

/** One request as the receiver got it. */
export interface ReceivedDelivery {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The status it was answered with; undefined while it hangs. */
  answered?: number;
}

/** How the receiver answers a request: a status, or 'hang' to answer nothing. */
export type ReceiverAnswer = (delivery: ReceivedDelivery, index: number) => number | 'hang';

/** A customer's webhook endpoint on loopback, as a receiver of docs/webhooks.md runs it. */
export interface WebhookReceiver {
  readonly url: string;
  readonly port: number;
  readonly received: ReceivedDelivery[];
  /** The most requests it held open at once. */
  readonly mostInFlight: number;
  answer: ReceiverAnswer;
  close(): Promise<void>;
}

/** Starts a receiver on `port` (0: any free one) that records every request and answers as `answer` says. */
export function startWebhookReceiver(answer: ReceiverAnswer, port = 0): Promise<WebhookReceiver> {
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();
  let inFlight = 0;
  const receiver = {
    url: '',
    port: 0,
    received: [] as ReceivedDelivery[],
    mostInFlight: 0,
    answer,
    close: (): Promise<void> => Promise.resolve(),
  };
  const server = createServer((request, response) => {
    inFlight += 1;
    receiver.mostInFlight = Math.max(receiver.mostInFlight, inFlight);
    response.on('close', () => (inFlight -= 1));
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const delivery: ReceivedDelivery = { headers: request.headers, body };
      const index = receiver.received.push(delivery) - 1;
      const status = receiver.answer(delivery, index);
      if (status === 'hang') {
        hanging.add(response);
        return;
      }
      delivery.answered = status;
      response.writeHead(status).end();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      receiver.port = (server.address() as AddressInfo).port;
      receiver.url = `http://127.0.0.1:${receiver.port}/hooks`;
      receiver.close = () => {
        for (const socket of sockets) socket.destroy();
        return new Promise((done) => server.close(() => done()));
      };
      resolve(receiver);
    });
  });
}

/**
 * Verifies a delivery as a receiver would, with the Standard Webhooks
 * reference library and with Svix's: each throws on a bad signature or a
 * stale timestamp. Answers the parsed body.
 */
export function verifyDelivery(secret: string, delivery: ReceivedDelivery): { type: string; timestamp: string; data: Record<string, unknown> } {
  const headers = {
    'webhook-id': String(delivery.headers['webhook-id']),
    'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
    'webhook-signature': String(delivery.headers['webhook-signature']),
  };
  const verified = new StandardWebhook(secret).verify(delivery.body, headers) as { type: string; timestamp: string; data: Record<string, unknown> };
  new SvixWebhook(secret).verify(delivery.body, headers);
  return verified;
}

/** The parsed body of a delivery, unverified. */
export function typeOf(delivery: ReceivedDelivery): string {
  return (JSON.parse(delivery.body) as { type: string }).type;
}
