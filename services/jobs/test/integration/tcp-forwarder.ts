import { createServer, connect, type Socket } from 'node:net';

export interface TcpForwarder {
  /** Connections accepted so far. */
  readonly connections: number;
  /** The most connections that were open at one time. */
  readonly mostOpen: number;
  close(): Promise<void>;
}

/**
 * Listens on `port` and pipes each connection to `target`, optionally after
 * a pause. Lets a test bring an SMTP server up on a port the worker already
 * failed to reach, or keep a mail "in flight" for a while, without touching
 * the worker's code.
 */
export async function startTcpForwarder(
  port: number,
  target: { host: string; port: number },
  options: { delayMs?: number } = {},
): Promise<TcpForwarder> {
  const sockets = new Set<Socket>();
  let connections = 0;
  let open = 0;
  let mostOpen = 0;
  const server = createServer((client) => {
    connections += 1;
    open += 1;
    mostOpen = Math.max(mostOpen, open);
    sockets.add(client);
    client.on('close', () => {
      open -= 1;
      sockets.delete(client);
    });
    client.on('error', () => client.destroy());
    setTimeout(() => {
      if (client.destroyed) return;
      const upstream = connect(target.port, target.host);
      sockets.add(upstream);
      upstream.on('close', () => {
        sockets.delete(upstream);
        client.destroy();
      });
      upstream.on('error', () => upstream.destroy());
      client.on('close', () => upstream.destroy());
      client.pipe(upstream).pipe(client);
    }, options.delayMs ?? 0);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    get connections() {
      return connections;
    },
    get mostOpen() {
      return mostOpen;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
