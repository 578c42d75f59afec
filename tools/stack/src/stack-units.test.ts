import { migrationOrder, selectUnits, stackUnits, startOrder, type StackUnit } from './stack-units';

const names = (units: readonly StackUnit[]): string[] => units.map((unit) => unit.name);

function unit(name: string, needs: readonly string[] = []): StackUnit {
  return { name, entry: `${name}/dist/main.js`, migrates: false, serveArgs: [], ports: [], needs, backingServices: [] };
}

describe('stackUnits', () => {
  it('holds the units that exist today, gRPC services first', () => {
    expect(names(stackUnits)).toEqual(['identity', 'oauth', 'totp', 'posts', 'passkeys', 'jobs', 'gateway']);
  });

  it('runs every unit from its built dist/main.js', () => {
    for (const entry of stackUnits) expect(entry.entry).toMatch(/^(services\/[a-z]+|gateway)\/dist\/main\.js$/);
  });

  it('publishes identity as IDENTITY_GRPC_ADDRESS and has the gateway need it', () => {
    const identity = stackUnits.find((entry) => entry.name === 'identity');
    expect(identity?.addressVariable).toBe('IDENTITY_GRPC_ADDRESS');
    expect(identity?.ports.map((port) => port.variable)).toEqual(['GRPC_PORT', 'METRICS_PORT', 'ADMIN_GRPC_PORT']);
    expect(stackUnits.find((entry) => entry.name === 'gateway')?.needs).toEqual(['identity', 'oauth', 'totp', 'posts', 'passkeys']);
  });

  it('names only units of the catalogue as needs', () => {
    const known = new Set(names(stackUnits));
    for (const entry of stackUnits) for (const need of entry.needs) expect(known).toContain(need);
  });
});

describe('selectUnits', () => {
  it('selects every unit by default', () => {
    expect(names(selectUnits(stackUnits))).toEqual(['identity', 'oauth', 'totp', 'posts', 'passkeys', 'jobs', 'gateway']);
  });

  it('keeps catalogue order whatever order the names come in', () => {
    expect(names(selectUnits(stackUnits, ['gateway', 'identity']))).toEqual(['identity', 'gateway']);
  });

  it('rejects names it does not know', () => {
    expect(() => selectUnits(stackUnits, ['jobs', 'billing'])).toThrow('unknown stack unit(s): billing');
  });
});

describe('migrationOrder', () => {
  it('migrates the services, then jobs; the gateway has no migrations', () => {
    expect(names(migrationOrder(stackUnits))).toEqual(['identity', 'oauth', 'totp', 'posts', 'passkeys', 'jobs']);
  });
});

describe('startOrder', () => {
  it('starts the services, jobs and the gateway last', () => {
    expect(names(startOrder(stackUnits))).toEqual(['identity', 'oauth', 'totp', 'posts', 'passkeys', 'jobs', 'gateway']);
  });

  it('starts a unit after the units it needs even when listed before them', () => {
    const units = [unit('gateway', ['posts', 'identity']), unit('identity'), unit('posts', ['identity'])];
    expect(names(startOrder(units))).toEqual(['identity', 'posts', 'gateway']);
  });

  it('ignores needs on units that are not selected', () => {
    expect(names(startOrder(selectUnits(stackUnits, ['jobs', 'gateway'])))).toEqual(['jobs', 'gateway']);
  });

  it('refuses a cycle', () => {
    expect(() => startOrder([unit('a', ['b']), unit('b', ['a'])])).toThrow('cycle');
  });
});
