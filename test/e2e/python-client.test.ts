import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { signedInAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';

/**
 * The generated Python client (clients/python) against the real gateway:
 * a service written in Python checks a session (docs/integration.md).
 * Debian's python3 with python3-grpcio and python3-protobuf (.ci/run).
 */
const root = path.resolve(__dirname, '../..');
let stack: E2eStack;

beforeAll(async () => {
  stack = await startE2eStack('python');
}, 60_000);

afterAll(async () => {
  await stack?.destroy();
});

async function introspectFromPython(token: string): Promise<Record<string, unknown>> {
  const address = `127.0.0.1:${stack.processes.get('gateway')!.ports.GRPC_PORT}`;
  const { stdout } = await promisify(execFile)('/usr/bin/python3', [path.join(root, 'clients/python/examples/introspect.py'), address, token], {
    env: { PATH: process.env.PATH, PYTHONPATH: path.join(root, 'clients/python'), PYTHONDONTWRITEBYTECODE: '1' },
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

it('checks a live session and an unknown token with the generated Python client', async () => {
  const account = await signedInAccount(stack, 'pythonista');
  expect(await introspectFromPython(account.client.sessionCookie!)).toEqual({
    active: true,
    user_id: account.id,
    session_id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
    authentication_methods: ['pwd'],
    second_factor: false,
    expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
  });
  expect(await introspectFromPython('A'.repeat(43))).toEqual({ active: false });
});
