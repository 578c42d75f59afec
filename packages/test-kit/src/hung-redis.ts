import { createServer, type AddressInfo, type Socket } from 'node:net';

export interface HungRedis {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * A Redis that hangs, which is worse for a caller than one that refuses
 * connections: commands wait instead of failing. `silent` accepts
 * connections and never answers; `after-handshake` answers ioredis's
 * connection handshake (CLIENT SETNAME, INFO), so the client is ready,
 * and then nothing.
 */
export async function startHungRedis(mode: 'silent' | 'after-handshake'): Promise<HungRedis> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    if (mode === 'after-handshake') socket.on('data', (chunk: Buffer) => answerHandshake(socket, chunk));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function answerHandshake(socket: Socket, chunk: Buffer): void {
  // Each command is a RESP array whose first bulk string is the command's name.
  for (const [, name] of chunk.toString().matchAll(/\*\d+\r\n\$\d+\r\n(\w+)\r\n/g)) {
    const command = name!.toUpperCase();
    if (command === 'CLIENT') socket.write('+OK\r\n');
    if (command === 'INFO') {
      const info = '# Persistence\r\nloading:0\r\n';
      socket.write(`$${Buffer.byteLength(info)}\r\n${info}\r\n`);
    }
  }
}
