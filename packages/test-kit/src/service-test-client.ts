import { randomUUID } from 'node:crypto';
import {
  createServiceClient,
  startRequestContext,
  type RequestContext,
  type ServiceClient,
  type ServiceDefinitionShape,
  type TlsFiles,
} from '@latchkey/grpc-kit';
import { createLogger } from '@latchkey/telemetry';

type RequestOf<M> = M extends { requestDeserialize: (value: Buffer) => infer Request } ? Request : never;
type ResponseOf<M> = M extends { responseDeserialize: (value: Buffer) => infer Response } ? Response : never;

/** A service client whose calls take a context only when a test wants to set one. */
export type TestServiceClient<Definition extends ServiceDefinitionShape> = {
  [Method in keyof Definition]: (
    request: RequestOf<Definition[Method]>,
    context?: RequestContext,
  ) => Promise<ResponseOf<Definition[Method]>>;
} & { close(): void };

const silent = createLogger({ service: 'test', level: 'silent' });

/**
 * A request context as the gateway would hand one on: a fresh request id and
 * `budgetMs` to answer; with `operator`, as an operator's tool would.
 */
export function testRequestContext(budgetMs = 5_000, operator?: string): RequestContext {
  const started = startRequestContext({ requestId: randomUUID(), logger: silent, deadline: Date.now() + budgetMs, operator });
  return started.context;
}

/**
 * A client of a service under test: each call without a context of its own
 * runs in a fresh one with a 5 s budget, as a call from the gateway would;
 * with `tls`, over mutual TLS with those files; with `operator`, naming that
 * person, as admin.v1 needs.
 */
export function createTestServiceClient<Definition extends ServiceDefinitionShape>(
  definition: Definition,
  address: string,
  tls?: TlsFiles,
  options: { readonly operator?: string } = {},
): TestServiceClient<Definition> {
  const client = createServiceClient(definition, address, tls ? { tls } : {}) as unknown as Record<
    string,
    (request: unknown, context: RequestContext) => Promise<unknown>
  >;
  const methods: Record<string, unknown> = { close: () => (client as unknown as ServiceClient<Definition>).close() };
  for (const name of Object.keys(definition)) {
    const call = client[name];
    if (typeof call === 'function') methods[name] = (request: unknown, context?: RequestContext) => call(request, context ?? testRequestContext(5_000, options.operator));
  }
  return methods as TestServiceClient<Definition>;
}
