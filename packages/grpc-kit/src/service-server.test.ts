import { identityV1 } from '@latchkey/contracts';
import { AppError } from '@latchkey/errors';
import { createLogger } from '@latchkey/telemetry';
import { Registry } from 'prom-client';
import { Writable } from 'node:stream';
import { createServiceClient, type ServiceClient } from './service-client';
import { ServiceServer } from './service-server';
import type { ServiceHandlers } from './service-definition';
import { startRequestContext, type RequestContext } from './request-context';

type Identity = typeof identityV1.IdentityServiceService;
type GetUser = ServiceHandlers<Identity>['getUser'];

const logLines: Record<string, unknown>[] = [];
const logger = createLogger({
  service: 'grpc-kit-test',
  level: 'debug',
  destination: new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  }),
});

/** The handler under test; each test sets its own. */
let getUser: GetUser = async () => ({ user: undefined, signInMethods: [] });
const seen: RequestContext[] = [];

/** Every identity.v1 method answers through `getUser`'s stand-in; the tests call GetUser only. */
const handlers = new Proxy({} as ServiceHandlers<Identity>, {
  get: () => (request: never, context: RequestContext) => {
    seen.push(context);
    return getUser(request, context);
  },
});

let server: ServiceServer;
let client: ServiceClient<Identity>;

function callerContext(budgetMs: number, requestId = 'caller-request') {
  return startRequestContext({ requestId, logger, deadline: Date.now() + budgetMs });
}

function aborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }));
}

beforeAll(async () => {
  server = new ServiceServer({ logger, registry: new Registry() });
  server.addService('identity.v1.IdentityService', identityV1.IdentityServiceService, handlers);
  const port = await server.listen('127.0.0.1', 0);
  client = createServiceClient(identityV1.IdentityServiceService, `127.0.0.1:${port}`);
});

afterAll(async () => {
  client.close();
  await server.shutdown(1_000);
});

beforeEach(() => {
  seen.length = 0;
  logLines.length = 0;
});

describe('the request context across a call', () => {
  it('hands the caller’s request id and a deadline inside the caller’s to the handler', async () => {
    let handlerStartedAt = 0;
    getUser = async () => {
      handlerStartedAt = Date.now();
      return { user: undefined, signInMethods: [] };
    };
    const caller = callerContext(2_000, 'req-42');
    const sentAt = Date.now();
    await client.getUser({ userId: 'u' }, caller.context);
    caller.end();

    const [context] = seen;
    expect(context?.requestId).toBe('req-42');
    // gRPC sends the time left, which the server counts from the call's
    // arrival: the deadline moves later by the call's transit, at most the
    // time until the handler ran. Less that, the server keeps back time for
    // its answer: 10 % of what is left, at most 50 ms.
    const transitBound = handlerStartedAt - sentAt;
    expect(context!.deadline).toBeLessThanOrEqual(caller.context.deadline + transitBound - 50);
    expect(context!.deadline).toBeGreaterThan(caller.context.deadline - 200);
    expect(logLines).toContainEqual(
      expect.objectContaining({ request_id: 'req-42', rpc: '/identity.v1.IdentityService/GetUser', msg: 'rpc completed', code: 'OK' }),
    );
  });

  it('hands on the operator a tool names, in any script, and none when it names none', async () => {
    getUser = async () => ({ user: undefined, signInMethods: [] });
    for (const operator of ['ada', 'Zoë Ångström <zoe@example.com>', '100% sure']) {
      const started = startRequestContext({ requestId: 'req-op', logger, deadline: Date.now() + 2_000, operator });
      await client.getUser({ userId: 'u' }, started.context);
      started.end();
    }
    const plain = callerContext(2_000);
    await client.getUser({ userId: 'u' }, plain.context);
    plain.end();
    expect(seen.map((context) => context.operator)).toEqual(['ada', 'Zoë Ångström <zoe@example.com>', '100% sure', undefined]);
  });

  it('aborts the handler’s signal when the caller gives up, and the caller hears service:unavailable', async () => {
    let handlerAbort: Promise<unknown> | undefined;
    getUser = async (_request, context) => {
      handlerAbort = aborted(context.signal);
      await handlerAbort;
      throw context.signal.reason;
    };
    const caller = callerContext(5_000);
    const call = client.getUser({ userId: 'u' }, caller.context);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const cancelledAt = Date.now();
    caller.cancel('The client closed the connection.');

    await expect(call).rejects.toMatchObject({ code: 'service:unavailable' });
    await expect(handlerAbort).resolves.toMatchObject({ code: 'service:unavailable' });
    // At once, not at the server's own deadline seconds later.
    expect(Date.now() - cancelledAt).toBeLessThan(1_000);
    caller.end();
  });

  it('aborts the handler’s signal at its deadline, before the caller’s runs out', async () => {
    const observed: { at?: number; reason?: unknown } = {};
    getUser = async (_request, context) => {
      observed.reason = await aborted(context.signal);
      observed.at = Date.now();
      throw context.signal.reason;
    };
    const caller = callerContext(300);
    await expect(client.getUser({ userId: 'u' }, caller.context)).rejects.toMatchObject({ code: 'service:unavailable' });
    caller.end();

    expect(observed.reason).toBeInstanceOf(AppError);
    expect(observed.at).toBeLessThan(caller.context.deadline);
    expect(logLines).toContainEqual(expect.objectContaining({ msg: 'rpc aborted', aborted: true, request_id: 'caller-request' }));
  });

  it('does not start a call whose context has already aborted', async () => {
    const caller = callerContext(1_000);
    caller.cancel('gone');
    await expect(client.getUser({ userId: 'u' }, caller.context)).rejects.toMatchObject({ code: 'service:unavailable' });
    expect(seen).toHaveLength(0);
    caller.end();
  });

  it('carries contract errors with their fields, and hides anything else as internal:error', async () => {
    const caller = callerContext(2_000);
    getUser = async () => {
      throw AppError.validation([{ field: 'user_id', message: 'must be a UUID' }]);
    };
    await expect(client.getUser({ userId: 'u' }, caller.context)).rejects.toMatchObject({
      code: 'validation:invalid_input',
      fields: [{ field: 'user_id', message: 'must be a UUID' }],
    });

    getUser = async () => {
      throw new Error('SELECT secret FROM internals failed');
    };
    const hidden: unknown = await client.getUser({ userId: 'u' }, caller.context).catch((error: unknown) => error);
    expect(hidden).toMatchObject({ code: 'internal:error' });
    expect((hidden as AppError).message).not.toMatch(/internals/);
    expect(logLines).toContainEqual(expect.objectContaining({ level: 'error', msg: 'rpc failed', error_code: 'internal:error' }));

    getUser = async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    };
    await expect(client.getUser({ userId: 'u' }, caller.context)).rejects.toMatchObject({ code: 'service:unavailable' });
    caller.end();
  });
});

describe('the callers allowed per RPC', () => {
  it('are refused at start when they name an RPC the service does not have', () => {
    const other = new ServiceServer({ logger, registry: new Registry() });
    expect(() =>
      other.addService('identity.v1.IdentityService', identityV1.IdentityServiceService, handlers, {
        allowedCallers: { GetUser: ['jobs'], SaveArtifact: ['gateway'] },
      }),
    ).toThrow('the callers allowed for identity.v1.IdentityService name RPCs it does not have: SaveArtifact');
    expect(() =>
      other.addService('identity.v1.IdentityService', identityV1.IdentityServiceService, handlers, { allowedCallers: { GetUser: ['jobs'] } }),
    ).not.toThrow();
  });
});
