import { identityV1, oidcV1, serviceDefinitions, sessionsV1 } from '@latchkey/contracts';
import { ServiceServer, type ServiceDefinitionShape, type ServiceHandlers } from '@latchkey/grpc-kit';
import { testRequestContext } from '@latchkey/test-kit';
import { createLogger } from '@latchkey/telemetry';
import { unitNamed, units, type Unit } from '@latchkey/units';
import { Registry } from 'prom-client';
import { z } from 'zod';
import { connectCallees, connectCalleesOf } from './callee-clients';
import { probeCallees, probeCalleesOf } from './callee-probes';
import { callerVariables, callerVariablesOf } from './caller-variables';

const logger = createLogger({ service: 'callees-test', level: 'silent' });

/** Answers every method of a service with `answer`, recording which were called. */
function handlersOf<Definition extends ServiceDefinitionShape>(answer: unknown, called: string[]): ServiceHandlers<Definition> {
  return new Proxy({} as ServiceHandlers<Definition>, {
    get: (_target, method: string) => async () => {
      called.push(method);
      return answer;
    },
  });
}

async function serve(services: readonly [string, ServiceDefinitionShape, unknown][], called: string[]): Promise<{ server: ServiceServer; address: string }> {
  const server = new ServiceServer({ logger, registry: new Registry() });
  for (const [name, definition, answer] of services) server.addService(name, definition, handlersOf(answer, called));
  return { server, address: `127.0.0.1:${await server.listen('127.0.0.1', 0)}` };
}

describe('connectCallees()', () => {
  test('gives a unit one client per service its catalogue entry calls, named by proto package, each with its methods', () => {
    const settings = z.object(callerVariables('gateway')).parse({});
    const gateway = connectCallees('gateway', settings);
    const jobs = connectCallees('jobs', z.object(callerVariables('jobs')).parse({}));
    const identity = connectCallees('identity', {});
    try {
      expect(Object.keys(gateway.clients).sort()).toEqual(['identity', 'oauth', 'oidc', 'orgs', 'passkeys', 'posts', 'scim', 'sso', 'totp']);
      expect(Object.keys(gateway.clients.oidc).sort()).toEqual([...Object.keys(oidcV1.OidcServiceService), 'close'].sort());
      expect(Object.keys(jobs.clients).sort()).toEqual(['identity', 'oauth', 'oidc', 'passkeys', 'posts', 'sso', 'totp', 'webhooks']);
      expect(identity.clients).toEqual({});
    } finally {
      gateway.close();
      jobs.close();
      identity.close();
    }
  });

  test("reaches each service at its unit's address: oidc.v1 where identity listens", async () => {
    const called: string[] = [];
    const { server, address } = await serve(
      [
        ['identity.v1.IdentityService', identityV1.IdentityServiceService, identityV1.GetUserResponse.fromPartial({ user: { handle: 'ada' } })],
        ['oidc.v1.OidcService', oidcV1.OidcServiceService, oidcV1.GetClientResponse.fromPartial({ found: true })],
      ],
      called,
    );
    const { clients, close } = connectCallees('gateway', z.object(callerVariables('gateway')).parse({ IDENTITY_GRPC_ADDRESS: address }));
    try {
      await expect(clients.identity.getUser({ userId: '00000000-0000-4000-8000-000000000000' }, testRequestContext())).resolves.toMatchObject({ user: { handle: 'ada' } });
      await expect(clients.oidc.getClient({ clientId: 'grafana' }, testRequestContext())).resolves.toMatchObject({ found: true });
      expect(called).toEqual(['getUser', 'getClient']);
    } finally {
      close();
      await server.shutdown(1_000);
    }
  });

  test('refuses settings without the address of a unit it calls, naming the variable', () => {
    expect(() => connectCalleesOf(unitNamed('oauth'), {})).toThrow('IDENTITY_GRPC_ADDRESS is not among the settings');
  });
});

describe('a unit that is not in the catalogue yet', () => {
  // A new unit, `audit`, whose service is sessions.v1 under another name: what the catalogue and `pnpm gen` would add.
  const auditDefinition: ServiceDefinitionShape = Object.fromEntries(
    Object.entries(sessionsV1.SessionsServiceService).map(([method, definition]) => [
      method,
      { ...definition, path: definition.path.replace('sessions.v1.SessionsService', 'audit.v1.AuditService') },
    ]),
  );
  const audit: Unit = {
    ...unitNamed('posts'),
    name: 'audit',
    grpcService: 'audit.v1.AuditService',
    serves: ['audit.v1.AuditService'],
    ports: [{ name: 'grpc', variable: 'GRPC_PORT', containerPort: 50_051, localOffset: 20 }],
  };
  const caller: Unit = { ...unitNamed('jobs'), calls: { 'audit.v1.AuditService': ['IntrospectSession'] } };
  const catalogue = [...units, audit];

  test('is read by its callers at its port on one host', () => {
    expect(z.object(callerVariablesOf(caller, catalogue)).parse({})).toEqual({ AUDIT_GRPC_ADDRESS: '127.0.0.1:50071', GRPC_DEADLINE_MS: 10_000 });
  });

  test('is reached by its callers and probed, from its catalogue entry alone', async () => {
    const called: string[] = [];
    const { server, address } = await serve([['audit.v1.AuditService', auditDefinition, { active: false }]], called);
    const settings = { AUDIT_GRPC_ADDRESS: address };
    const { clients, close } = connectCalleesOf(caller, settings, { catalogue, definitions: { ...serviceDefinitions, 'audit.v1.AuditService': auditDefinition } });
    const probes = probeCalleesOf(caller, settings, catalogue);
    try {
      expect(Object.keys(clients)).toEqual(['audit']);
      await expect(clients.audit!.introspectSession!({ token: 'x' }, testRequestContext())).resolves.toEqual({ active: false });
      expect(called).toEqual(['introspectSession']);
      expect(probes.map(({ unit, service }) => ({ unit, service }))).toEqual([{ unit: 'audit', service: 'audit.v1.AuditService' }]);
      expect(await probes[0]!.probe.serving('audit.v1.AuditService')).toBe(true);
      await server.shutdown(1_000);
      expect(await probes[0]!.probe.serving('audit.v1.AuditService', 500)).toBe(false);
    } finally {
      close();
      for (const { probe } of probes) probe.close();
      await server.shutdown(1_000);
    }
  });

  test('has no client until its proto is generated', () => {
    expect(() => connectCalleesOf(caller, { AUDIT_GRPC_ADDRESS: '127.0.0.1:1' }, { catalogue, definitions: serviceDefinitions })).toThrow(
      'jobs calls audit.v1.AuditService, which no proto of proto/ declares',
    );
  });
});

test('probeCallees() asks each unit the gateway calls about its own service, in catalogue order', () => {
  const probes = probeCallees('gateway', z.object(callerVariables('gateway')).parse({}));
  try {
    expect(probes.map(({ unit, service }) => `${unit} ${service}`)).toEqual([
      'identity identity.v1.IdentityService',
      'oauth oauth.v1.OAuthService',
      'totp totp.v1.TotpService',
      'posts posts.v1.PostsService',
      'passkeys passkeys.v1.PasskeysService',
    ]);
  } finally {
    for (const { probe } of probes) probe.close();
  }
});
