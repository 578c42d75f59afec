import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

/**
 * Deletes JetStream streams through the JetStream API subjects
 * (`$JS.API.STREAM.DELETE.<name>`), speaking the NATS text protocol
 * directly: the bench removes the two streams of its throwaway stack and
 * needs nothing else from NATS, which a client library would add as a
 * dependency for.
 */
export async function deleteStreams(natsUrl: string, streams: readonly string[], timeoutMs = 5_000): Promise<void> {
  if (streams.length === 0) return;
  const url = new URL(natsUrl);
  const socket = connect({ host: url.hostname, port: Number(url.port || 4222) });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`NATS at ${url.host} did not answer within ${timeoutMs} ms`)), timeoutMs);
      const inbox = `_INBOX.${randomBytes(8).toString('hex')}`;
      const waiting = new Set(streams.map((_, index) => `${inbox}.${index}`));
      let buffered = '';
      let connected = false;
      socket.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      socket.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        for (;;) {
          const end = buffered.indexOf('\r\n');
          if (end < 0) return;
          const line = buffered.slice(0, end);
          if (line.startsWith('MSG ')) {
            // MSG <subject> <sid> [reply-to] <#bytes>, then the payload and CRLF.
            const parts = line.split(' ');
            const size = Number(parts[parts.length - 1]);
            if (buffered.length < end + 2 + size + 2) return;
            waiting.delete(parts[1] ?? '');
            buffered = buffered.slice(end + 2 + size + 2);
          } else {
            buffered = buffered.slice(end + 2);
            if (line.startsWith('-ERR')) {
              clearTimeout(timer);
              reject(new Error(`NATS refused: ${line}`));
              return;
            }
            if (line.startsWith('PING')) socket.write('PONG\r\n');
            if (line.startsWith('INFO ') && !connected) {
              connected = true;
              sendDeletes(socket, url, inbox, streams);
            }
          }
          if (connected && waiting.size === 0) {
            clearTimeout(timer);
            resolve();
            return;
          }
        }
      });
    });
  } finally {
    socket.destroy();
  }
}

function sendDeletes(socket: Socket, url: URL, inbox: string, streams: readonly string[]): void {
  const credentials = url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : {};
  const options = { verbose: false, pedantic: false, lang: 'latchkey-bench', version: '1', protocol: 1, ...credentials };
  let commands = `CONNECT ${JSON.stringify(options)}\r\n`;
  streams.forEach((stream, index) => {
    commands += `SUB ${inbox}.${index} ${index + 1}\r\n`;
    commands += `PUB $JS.API.STREAM.DELETE.${stream} ${inbox}.${index} 0\r\n\r\n`;
  });
  socket.write(commands);
}
