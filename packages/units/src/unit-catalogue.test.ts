import { existsSync } from 'node:fs';
import path from 'node:path';
import { addressVariableOf, calleesOf, callersOf, localPortOf, methodCallersOf, serveArgsOf, unitNamed, unitServing, units } from './unit-catalogue';

test('names are unique and every call names a service a gRPC unit of the list serves', () => {
  const names = units.map((unit) => unit.name);
  expect(new Set(names).size).toBe(names.length);
  for (const unit of units) {
    for (const service of Object.keys(unit.calls)) {
      const callee = unitServing(service);
      expect({ caller: unit.name, service, kind: callee.kind }).toEqual({ caller: unit.name, service, kind: 'grpc' });
      // A unit asks its own process, not its gRPC port.
      expect(callee.name).not.toBe(unit.name);
      expect(unit.calls[service]!.length).toBeGreaterThan(0);
      expect(new Set(unit.calls[service]).size).toBe(unit.calls[service]!.length);
    }
  }
});

test('a gRPC unit serves its health-checked service, and no service is served twice', () => {
  const served = units.flatMap((unit) => unit.serves ?? []);
  expect(new Set(served).size).toBe(served.length);
  for (const unit of units) {
    if (unit.kind === 'grpc') expect(unit.serves).toContain(unit.grpcService);
    else expect(unit.serves).toBeUndefined();
  }
});

test('every unit has a metrics port; a gRPC unit a health service and a gRPC port (and a platform API its admin port); the HTTP unit a gRPC port too; a worker no other', () => {
  for (const unit of units) {
    const ports = unit.ports.map((port) => port.name);
    if (unit.kind === 'grpc') {
      expect(unit.grpcService).toMatch(new RegExp(`^${unit.name}\\.v\\d+\\.\\w+Service$`));
      // identity serves admin.v1 on a listener of its own.
      expect(ports).toEqual(unit.name === 'identity' ? ['grpc', 'metrics', 'admin'] : ['grpc', 'metrics']);
    } else {
      expect(unit.grpcService).toBeUndefined();
      // The gateway also serves sessions.v1 to services beside Latchkey.
      expect(ports).toEqual(unit.kind === 'http' ? ['http', 'grpc', 'metrics'] : ['metrics']);
    }
  }
});

test('no two units share a port on one host', () => {
  // Admin ports count in the gRPC range (tools/stack's port layout).
  const local = units.flatMap((unit) => unit.ports.map((port) => `${port.name === 'admin' ? 'grpc' : port.name}+${port.localOffset}`));
  expect(new Set(local).size).toBe(local.length);
});

test("localPortOf() puts each port at its range plus the unit's offset, as the stack and the processes' defaults do", () => {
  expect(localPortOf(unitNamed('identity'), 'grpc')).toBe(50_051);
  expect(localPortOf(unitNamed('identity'), 'admin')).toBe(50_061);
  expect(localPortOf(unitNamed('passkeys'), 'grpc')).toBe(50_056);
  expect(localPortOf(unitNamed('gateway'), 'http')).toBe(8_080);
  expect(localPortOf(unitNamed('jobs'), 'metrics')).toBe(9_474);
  expect(() => localPortOf(unitNamed('jobs'), 'grpc')).toThrow('unit jobs has no grpc port');
});

test('a unit with a time budget of its own calls other units, and its budget is within what GRPC_DEADLINE_MS accepts', () => {
  const budgeted = units.filter((unit) => unit.deadlineMs !== undefined);
  expect(budgeted.map((unit) => [unit.name, unit.deadlineMs])).toEqual([
    ['jobs', 10_000],
    ['gateway', 5_000],
  ]);
  for (const unit of budgeted) {
    expect(calleesOf(unit).length).toBeGreaterThan(0);
    expect(unit.deadlineMs).toBeGreaterThanOrEqual(100);
    expect(unit.deadlineMs).toBeLessThanOrEqual(120_000);
  }
});

test('every gRPC unit has a caller', () => {
  for (const unit of units.filter((candidate) => candidate.kind === 'grpc')) expect(callersOf(unit.name).length).toBeGreaterThan(0);
});

test('callers, addresses and serve arguments follow the list', () => {
  expect(callersOf('identity')).toEqual(['oauth', 'totp', 'passkeys', 'jobs', 'gateway']);
  expect(calleesOf(unitNamed('jobs'))).toEqual(['identity', 'oauth', 'totp', 'posts', 'passkeys']);
  expect(unitServing('oidc.v1.OidcService').name).toBe('identity');
  expect(() => unitServing('billing.v1.BillingService')).toThrow(/no unit serves billing\.v1\.BillingService/);
  expect(addressVariableOf('identity')).toBe('IDENTITY_GRPC_ADDRESS');
  expect(serveArgsOf(unitNamed('gateway'))).toEqual([]);
  expect(serveArgsOf(unitNamed('jobs'))).toEqual(['serve']);
  expect(() => unitNamed('nope')).toThrow(/no unit nope/);
});

test("a unit's required secrets are among its settings, and the commands its image carries are files of its folder", () => {
  for (const unit of units) {
    expect({ unit: unit.name, notRead: unit.requiredSecrets.filter((name) => !unit.settings.includes(name)) }).toEqual({ unit: unit.name, notRead: [] });
    for (const command of unit.commands ?? []) expect(existsSync(path.join(__dirname, '../../..', unit.folder, command))).toBe(true);
  }
});

test('each RPC answers only the units that list it: the credential ledger its owners, the OpenID artifacts the gateway, ended sessions the worker', () => {
  const identity = methodCallersOf('identity.v1.IdentityService');
  for (const rpc of ['ReserveCredential', 'ReserveCredentialRemoval', 'SettleCredentials', 'ListUnsettledCredentials']) {
    expect(identity[rpc]).toEqual(['oauth', 'totp', 'passkeys']);
  }
  expect(identity.GetUser).toEqual(['oauth', 'passkeys', 'jobs', 'gateway']);
  // No unit asks for it: no unit may.
  expect(methodCallersOf('totp.v1.TotpService').CreateLoginChallenge).toBeUndefined();
  const oidc = methodCallersOf('oidc.v1.OidcService');
  for (const rpc of ['SaveArtifact', 'IssueArtifacts', 'ConsumeArtifact', 'DestroyArtifact', 'RevokeGrantTokens']) expect(oidc[rpc]).toEqual(['gateway']);
  expect(oidc.EndSessions).toEqual(['jobs']);
  expect(methodCallersOf('totp.v1.TotpService').DeleteUserData).toEqual(['jobs']);
});

test('a unit on PostgreSQL owns schemas no other unit owns, and reads only schemas another unit owns', () => {
  const owners = new Map<string, string>();
  for (const unit of units) {
    expect({ unit: unit.name, database: unit.database !== undefined }).toEqual({ unit: unit.name, database: unit.backingServices.includes('postgres') });
    for (const schema of unit.database?.owns ?? []) {
      expect({ schema, owner: owners.get(schema) }).toEqual({ schema, owner: undefined });
      owners.set(schema, unit.name);
    }
  }
  for (const unit of units) {
    for (const schema of unit.database?.reads ?? []) {
      const owner = owners.get(schema);
      expect({ reader: unit.name, schema, owned: owner !== undefined && owner !== unit.name }).toEqual({ reader: unit.name, schema, owned: true });
    }
  }
  expect(unitNamed('posts').database).toEqual({ owns: ['posts'], reads: ['search'] });
});
