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

  it('redacts down to three levels below the logged object, in arrays too, without touching the caller’s object', () => {
    const out = capture();
    const logger = createLogger({ service: 'test', level: 'info', destination: out.destination });
    const job = { payload: { mail: { link: 'https://app/verify?token=t0k3n', to: 'a@example.com' } } };
    logger.info({ jobs: [{ token: 'in-array' }], job }, 'queued');
    const line = out.lines()[0];
    expect(JSON.stringify(line)).not.toMatch(/t0k3n|in-array/);
    expect(line).toMatchObject({ job: { payload: { mail: { link: '[redacted]', to: 'a@example.com' } } } });
    expect(job.payload.mail.link).toBe('https://app/verify?token=t0k3n');
  });

  it('redacts what errors and child bindings carry', () => {
    const out = capture();
    const logger = createLogger({ service: 'test', level: 'info', destination: out.destination });
    const error = Object.assign(new Error('mail failed'), { secret: 'err-secret', details: { password: 'err-password' } });
    logger.child({ session_id: 'bound-session', user_id: 'u1' }).warn({ err: error }, 'failed');
    const [line] = out.lines();
    expect(JSON.stringify(line)).not.toMatch(/err-secret|err-password|bound-session/);
    expect(line).toMatchObject({ user_id: 'u1', err: { type: 'Error', message: 'mail failed' } });
    expect(line?.err).toHaveProperty('stack');
  });
});
