import { Metadata } from '@grpc/grpc-js';
import { createLogger } from '@latchkey/telemetry';
import { startRequestContext } from './request-context';
import { composeServerMiddleware, type ServerMiddleware } from './server-middleware';

const logger = createLogger({ service: 'test', level: 'silent' });

describe('composeServerMiddleware()', () => {
  it('runs the first middleware outermost and hands each the context the one before passed on', async () => {
    const order: string[] = [];
    const tagging =
      (name: string): ServerMiddleware =>
      async (_call, context, next) => {
        order.push(`${name} in (${context.requestId})`);
        const answer = await next({ ...context, requestId: `${context.requestId}>${name}` });
        order.push(`${name} out`);
        return answer;
      };
    const run = composeServerMiddleware([tagging('a'), tagging('b')], async (_call, context) => {
      order.push(`handler (${context.requestId})`);
      return 'answer';
    });
    const { context, end } = startRequestContext({ requestId: 'r', logger, deadline: Date.now() + 1_000 });

    await expect(run({ method: '/x.v1.X/Y', request: {}, metadata: new Metadata() }, context)).resolves.toBe('answer');
    end();
    expect(order).toEqual(['a in (r)', 'b in (r>a)', 'handler (r>a>b)', 'b out', 'a out']);
  });

  it('lets a middleware refuse a call before the handler runs', async () => {
    const handler = jest.fn(async () => 'answer');
    const run = composeServerMiddleware(
      [
        async () => {
          throw new Error('refused');
        },
      ],
      handler,
    );
    const { context, end } = startRequestContext({ requestId: 'r', logger, deadline: Date.now() + 1_000 });
    await expect(run({ method: '/x.v1.X/Y', request: {}, metadata: new Metadata() }, context)).rejects.toThrow('refused');
    end();
    expect(handler).not.toHaveBeenCalled();
  });
});
