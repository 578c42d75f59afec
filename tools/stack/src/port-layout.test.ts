import { defaultFixedPortLayout, fixedPorts, osAssignedPorts, preferredOrAnyPort } from './port-layout';
import { selectUnits, stackUnits } from './stack-units';
import { createServer, type Server } from 'node:net';

describe('fixedPorts', () => {
  it('gives each service the gRPC port it defaults to, metrics ports from 9464, the gateway 8080', () => {
    const ports = fixedPorts(stackUnits, defaultFixedPortLayout);
    expect(Object.fromEntries(ports)).toEqual({
      identity: { GRPC_PORT: 50051, ADMIN_GRPC_PORT: 50061, METRICS_PORT: 9464 },
      oauth: { GRPC_PORT: 50052, METRICS_PORT: 9465 },
      totp: { GRPC_PORT: 50053, METRICS_PORT: 9466 },
      posts: { GRPC_PORT: 50054, METRICS_PORT: 9467 },
      passkeys: { GRPC_PORT: 50056, METRICS_PORT: 9469 },
      jobs: { METRICS_PORT: 9474 },
      gateway: { GATEWAY_PORT: 8080, GRPC_PORT: 50055, METRICS_PORT: 9475 },
    });
  });

  it('keeps each unit on its port whichever units are selected', () => {
    const ports = fixedPorts(selectUnits(stackUnits, ['jobs']), defaultFixedPortLayout);
    expect(Object.fromEntries(ports)).toEqual({ jobs: { METRICS_PORT: 9474 } });
  });

  it('never gives two ports of one kind the same number', () => {
    const all = [...fixedPorts(stackUnits, defaultFixedPortLayout).values()].flatMap((ports) => Object.values(ports));
    expect(new Set(all).size).toBe(all.length);
  });

  it('takes the port base and the gateway port from the layout', () => {
    const ports = fixedPorts(stackUnits, { grpcPortBase: 60000, metricsPortBase: 9000, gatewayPort: 3000 });
    expect(ports.get('identity')).toEqual({ GRPC_PORT: 60000, ADMIN_GRPC_PORT: 60010, METRICS_PORT: 9000 });
    expect(ports.get('gateway')).toEqual({ GATEWAY_PORT: 3000, GRPC_PORT: 60004, METRICS_PORT: 9011 });
  });
});

describe('osAssignedPorts', () => {
  it('asks for port 0 for every port variable of every unit', () => {
    const ports = osAssignedPorts(stackUnits);
    expect([...ports.keys()]).toEqual(stackUnits.map((unit) => unit.name));
    for (const unit of stackUnits) {
      expect(ports.get(unit.name)).toEqual(Object.fromEntries(unit.ports.map((port) => [port.variable, 0])));
    }
  });
});

describe('preferredOrAnyPort', () => {
  it('returns the preferred port when it is free and 0 when it is taken', async () => {
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const taken = typeof address === 'object' && address ? address.port : 0;
    try {
      expect(await preferredOrAnyPort(taken)).toBe(0);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    expect(await preferredOrAnyPort(taken)).toBe(taken);
  });
});
