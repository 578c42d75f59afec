import { createServer } from 'node:net';
import { localPortBases } from '@latchkey/units';
import type { PortKind, StackUnit } from './stack-units';

/** Port variable → port, for one unit. */
export type UnitPorts = Readonly<Record<string, number>>;

export interface FixedPortLayout {
  /** First gRPC port; each service's port is this plus its offset. */
  readonly grpcPortBase: number;
  /** First metrics port, likewise. */
  readonly metricsPortBase: number;
  readonly gatewayPort: number;
}

/** The catalogue's ranges, which each process's own defaults also follow. */
export const defaultFixedPortLayout: FixedPortLayout = {
  grpcPortBase: localPortBases.grpc,
  metricsPortBase: localPortBases.metrics,
  gatewayPort: localPortBases.http,
};

/**
 * Fixed ports for `units`: each port is its kind's base plus the unit's own
 * offset, so identity keeps 50051 whichever units run, and addresses stay
 * stable between local restarts and as units are added.
 */
export function fixedPorts(units: readonly StackUnit[], layout: FixedPortLayout): Map<string, UnitPorts> {
  const base: Record<PortKind, number> = {
    grpc: layout.grpcPortBase,
    admin: layout.grpcPortBase,
    metrics: layout.metricsPortBase,
    http: layout.gatewayPort,
  };
  return new Map(
    units.map((unit) => [unit.name, Object.fromEntries(unit.ports.map((port) => [port.variable, base[port.kind] + port.offset]))]),
  );
}

/**
 * Port 0 for every port variable: each process binds a port the OS picks
 * and reports it in its ready line. Choosing free ports up front and handing
 * them over would race with every other process binding ports meanwhile.
 */
export function osAssignedPorts(units: readonly StackUnit[]): Map<string, UnitPorts> {
  return new Map(units.map((unit) => [unit.name, Object.fromEntries(unit.ports.map((port) => [port.variable, 0]))]));
}

/**
 * A TCP port that was free a moment ago, for child processes that must be
 * told their port before they bind it (they cannot report a port 0 bind).
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** `preferred` when it can be bound on 127.0.0.1 right now, else 0 (let the OS pick). */
export function preferredOrAnyPort(preferred: number): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(0));
    server.listen(preferred, '127.0.0.1', () => server.close(() => resolve(preferred)));
  });
}
