import path from 'node:path';
import { type credentials as grpcCredentials, loadPackageDefinition, type Client, type ServiceError } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { channelCredentials, type TlsFiles } from './tls';

type HealthClient = Client & {
  check(
    request: { service: string },
    options: { deadline: number },
    callback: (error: ServiceError | null, response?: { status: string }) => void,
  ): void;
};

type HealthClientConstructor = new (address: string, creds: ReturnType<typeof grpcCredentials.createInsecure>) => HealthClient;

let constructorCache: HealthClientConstructor | undefined;

/** grpc.health.v1 from the proto the grpc-health-check package ships, loaded with proto-loader. */
function healthClientConstructor(): HealthClientConstructor {
  if (constructorCache) return constructorCache;
  const protoFile = path.join(path.dirname(require.resolve('grpc-health-check/package.json')), 'proto/health/v1/health.proto');
  const loaded = loadPackageDefinition(loadSync(protoFile, { keepCase: true, enums: String })) as unknown as {
    grpc: { health: { v1: { Health: HealthClientConstructor } } };
  };
  constructorCache = loaded.grpc.health.v1.Health;
  return constructorCache;
}

/** Asks a unit whether it serves `service`; for the gateway's /readyz. */
export class HealthProbe {
  private readonly client: HealthClient;

  constructor(address: string, tls: TlsFiles = {}) {
    const Health = healthClientConstructor();
    this.client = new Health(address, channelCredentials(tls));
  }

  serving(service: string, timeoutMs = 1_000): Promise<boolean> {
    return new Promise((resolve) => {
      this.client.check({ service }, { deadline: Date.now() + timeoutMs }, (error, response) =>
        resolve(!error && response?.status === 'SERVING'),
      );
    });
  }

  close(): void {
    this.client.close();
  }
}
