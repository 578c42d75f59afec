import { Writable } from 'node:stream';
import { createLogger } from '@latchkey/telemetry';
import { withOwnRequestContext, type RequestContext } from './request-context';

describe('withOwnRequestContext()', () => {
  it('gives each run a request id of its own on its log lines, and the budget as deadline', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = createLogger({ service: 'test', level: 'info', destination });
    const seen: RequestContext[] = [];
    for (let run = 0; run < 2; run += 1) {
      const before = Date.now();
      await withOwnRequestContext(logger, 5_000, async (context) => {
        seen.push(context);
        expect(context.deadline).toBeGreaterThanOrEqual(before + 5_000);
        context.logger.info('working');
      });
    }
    expect(seen[0]!.requestId).not.toBe(seen[1]!.requestId);
    expect(lines.map((line) => (JSON.parse(line) as { request_id: string }).request_id)).toEqual(seen.map((context) => context.requestId));
  });

  it('aborts the work at its deadline, and answers what the work answers', async () => {
    const aborted = withOwnRequestContext(createLogger({ service: 'test', level: 'silent' }), 10, (context) =>
      new Promise((_resolve, reject) => context.signal.addEventListener('abort', () => reject(context.signal.reason as Error))),
    );
    await expect(aborted).rejects.toMatchObject({ code: 'service:unavailable' });
    await expect(withOwnRequestContext(createLogger({ service: 'test', level: 'silent' }), 1_000, async () => 42)).resolves.toBe(42);
  });
});
