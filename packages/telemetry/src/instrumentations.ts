import type { Instrumentation } from '@opentelemetry/instrumentation';

/** The libraries we trace: inbound and outbound HTTP, gRPC, PostgreSQL and Redis. */
export async function getNodeAutoInstrumentations(): Promise<Instrumentation[]> {
  const [{ HttpInstrumentation }, { GrpcInstrumentation }, { PgInstrumentation }, { IORedisInstrumentation }] =
    await Promise.all([
      import('@opentelemetry/instrumentation-http'),
      import('@opentelemetry/instrumentation-grpc'),
      import('@opentelemetry/instrumentation-pg'),
      import('@opentelemetry/instrumentation-ioredis'),
    ]);
  return [
    new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => /^\/(healthz|readyz|metrics)/.test(req.url ?? '') }),
    new GrpcInstrumentation({ ignoreGrpcMethods: ['Check', 'Watch'] }),
    new PgInstrumentation(),
    new IORedisInstrumentation(),
  ];
}
