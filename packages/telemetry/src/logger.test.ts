import { Writable } from 'node:stream';
import { createLogger } from './logger';

function capture(): { lines: () => Record<string, unknown>[]; destination: Writable } {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { destination, lines: () => chunks.join('').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('createLogger()', () => {
  it('redacts passwords, tokens and cookies at any depth it is given', () => {
    const out = capture();
    const logger = createLogger({ service: 'test', level: 'info', destination: out.destination });
    logger.info(
      {
        password: 'hunter22',
        body: { new_password: 'x', token: 'abc', handle: 'ok' },
        req: { headers: { cookie: 'session_id=s', 'set-cookie': 'session_id=s' } },
      },
      'hello',
    );
    const text = JSON.stringify(out.lines());
    expect(text).not.toMatch(/hunter22|"abc"|session_id=s/);
    expect(out.lines()[0]).toMatchObject({ service: 'test', level: 'info', msg: 'hello', body: { handle: 'ok' } });
  });
});
