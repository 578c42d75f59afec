import { createServer, type Server, type Socket } from 'node:net';
import { deleteStreams } from './jetstream-cleanup';

/** A stand-in NATS server: answers each PUB to $JS.API.STREAM.DELETE.<name> on its reply subject. */
function fakeNats(deleted: string[]): Promise<{ server: Server; url: string }> {
  const server = createServer((socket: Socket) => {
    socket.write('INFO {"server_id":"fake","version":"2.9.10","jetstream":true}\r\n');
    let buffered = '';
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let end: number;
      while ((end = buffered.indexOf('\r\n')) >= 0) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const publish = /^PUB \$JS\.API\.STREAM\.DELETE\.(\S+) (\S+) 0$/.exec(line);
        if (!publish) continue;
        buffered = buffered.slice(2);
        deleted.push(publish[1]!);
        const payload = '{"type":"io.nats.jetstream.api.v1.stream_delete_response","success":true}';
        socket.write(`PING\r\nMSG ${publish[2]} 1 ${payload.length}\r\n${payload}\r\n`);
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      resolve({ server, url: `nats://127.0.0.1:${port}` });
    }),
  );
}

describe('deleteStreams()', () => {
  it('asks the JetStream API to delete each stream and waits for every answer', async () => {
    const deleted: string[] = [];
    const { server, url } = await fakeNats(deleted);
    try {
      await deleteStreams(url, ['BENCH_JOBS', 'BENCH_DEAD']);
      expect(deleted).toEqual(['BENCH_JOBS', 'BENCH_DEAD']);
    } finally {
      server.close();
    }
  });

  it('fails when nothing answers in time', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      await expect(deleteStreams(`nats://127.0.0.1:${port}`, ['X'], 200)).rejects.toThrow(/did not answer/);
    } finally {
      silent.close();
    }
  });
});
