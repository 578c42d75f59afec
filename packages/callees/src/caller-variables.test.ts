import { z } from 'zod';
import { localPortOf, unitNamed, units } from '@latchkey/units';
import { calleeAddressOf, callerVariables, callerVariablesOf } from './caller-variables';

const defaultsOf = (shape: Record<string, z.ZodType>): Record<string, unknown> => z.object(shape).parse({});

test("callerVariables() gives each unit the address of every unit it calls, defaulting to where that unit listens on one host", () => {
  expect(defaultsOf(callerVariables('gateway'))).toEqual({
    IDENTITY_GRPC_ADDRESS: '127.0.0.1:50051',
    OAUTH_GRPC_ADDRESS: '127.0.0.1:50052',
    TOTP_GRPC_ADDRESS: '127.0.0.1:50053',
    POSTS_GRPC_ADDRESS: '127.0.0.1:50054',
    PASSKEYS_GRPC_ADDRESS: '127.0.0.1:50056',
    GRPC_DEADLINE_MS: 5_000,
  });
  expect(defaultsOf(callerVariables('oauth'))).toEqual({ IDENTITY_GRPC_ADDRESS: '127.0.0.1:50051' });
  expect(defaultsOf(callerVariables('identity'))).toEqual({});
  for (const unit of units) {
    const addresses = Object.entries(defaultsOf(callerVariablesOf(unit))).filter(([name]) => name.endsWith('_GRPC_ADDRESS'));
    for (const [name, address] of addresses) {
      const callee = unitNamed(name.replace(/_GRPC_ADDRESS$/, '').toLowerCase());
      expect({ name, address }).toEqual({ name, address: `127.0.0.1:${localPortOf(callee, 'grpc')}` });
    }
  }
});

test('callerVariables() takes an address from the environment, and GRPC_DEADLINE_MS within 100 ms and 2 minutes', () => {
  const jobs = z.object(callerVariables('jobs'));
  expect(jobs.parse({ POSTS_GRPC_ADDRESS: 'latchkey-posts:50051', GRPC_DEADLINE_MS: '500' })).toMatchObject({
    POSTS_GRPC_ADDRESS: 'latchkey-posts:50051',
    IDENTITY_GRPC_ADDRESS: '127.0.0.1:50051',
    GRPC_DEADLINE_MS: 500,
  });
  expect(jobs.parse({}).GRPC_DEADLINE_MS).toBe(10_000);
  for (const refused of ['99', '120001', 'soon']) expect(jobs.safeParse({ GRPC_DEADLINE_MS: refused }).success).toBe(false);
});

test("calleeAddressOf() reads the address of the unit serving a service, and names the variable it lacks", () => {
  expect(calleeAddressOf('oidc.v1.OidcService', { IDENTITY_GRPC_ADDRESS: 'latchkey-identity:50051' })).toBe('latchkey-identity:50051');
  expect(() => calleeAddressOf('posts.v1.PostsService', { IDENTITY_GRPC_ADDRESS: 'x' })).toThrow('POSTS_GRPC_ADDRESS is not among the settings');
});
