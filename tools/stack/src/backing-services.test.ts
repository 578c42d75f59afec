import { createServer, type Server } from 'node:net';
import { backingServiceAddress, findUnreachableBackingServices } from './backing-services';
import { freePort } from './port-layout';

describe('backingServiceAddress', () => {
  it('reads host and port from the URL, with the standard port when it has none', () => {
    const env = {
      DATABASE_URL: 'postgres://u:p@db.internal/latchkey',
      REDIS_URL: 'rediss://[::1]:6380',
      NATS_URL: 'nats://127.0.0.1:4222',
    };
    expect(backingServiceAddress('postgres', env)).toMatchObject({
      host: 'db.internal',
      port: 5432,
      variable: 'DATABASE_URL',
    });
    expect(backingServiceAddress('redis', env)).toMatchObject({ host: '::1', port: 6380 });
    expect(backingServiceAddress('nats', env).startCommand).toContain('nats-server');
  });
});

describe('findUnreachableBackingServices', () => {
  it('lists the services nothing listens for, once each', async () => {
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const open = typeof address === 'object' && address ? address.port : 0;
    const closed = await freePort();
    try {
      const unreachable = await findUnreachableBackingServices(['postgres', 'nats', 'postgres'], {
        DATABASE_URL: `postgres://postgres@127.0.0.1:${open}/latchkey`,
        NATS_URL: `nats://127.0.0.1:${closed}`,
      });
      expect(unreachable.map((service) => service.name)).toEqual(['nats']);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
