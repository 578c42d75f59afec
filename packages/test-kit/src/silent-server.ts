import { createServer, type AddressInfo, type Socket } from 'node:net';

export interface SilentServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * A dependency that accepts connections and never answers: the slowest
 * kind there is, since nothing fails and every caller waits.
 */
export async function startSilentServer(): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
