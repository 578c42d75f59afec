import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { testSigningKeys } from '@latchkey/test-kit';
import { serveArgsOf, units } from '@latchkey/units';

const repoRoot = path.resolve(__dirname, '../..');
const app = 'https://accounts.example.test';

/**
 * A complete production environment but for the certificates: nothing in it
 * is a published development secret, and every address points where nothing
 * listens (the units must refuse before they connect anywhere).
 */
const productionEnvironment: Record<string, string> = {
  NODE_ENV: 'production',
  DATABASE_URL: 'postgres://latchkey:a-real-password@127.0.0.1:1/latchkey',
  REDIS_URL: 'redis://:a-real-password@127.0.0.1:1/0',
  NATS_URL: 'nats://127.0.0.1:1',
  SMTP_URL: 'smtp://127.0.0.1:1',
  PUBLIC_APP_URL: app,
  AUTH_JWT_SIGNING_KEYS: testSigningKeys(),
  TOTP_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  GOOGLE_CLIENT_ID: 'google-client',
  GOOGLE_CLIENT_SECRET: 'google-secret',
  GOOGLE_REDIRECT_URI: `${app}/oauth/google/callback`,
  GITHUB_CLIENT_ID: 'github-client',
  GITHUB_CLIENT_SECRET: 'github-secret',
  GITHUB_REDIRECT_URI: `${app}/oauth/github/callback`,
  WEBAUTHN_RP_ID: 'accounts.example.test',
  WEBAUTHN_ORIGINS: app,
};

function serve(folder: string, args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot, folder, 'dist/main.js'), ...args], {
      env: { PATH: process.env.PATH, ...productionEnvironment },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

/** docs/operations.md, "Mutual TLS": in production no unit serves without its certificate. */
describe('with NODE_ENV=production and no mutual TLS', () => {
  it.each(units.map((unit) => [unit.name, unit] as const))('%s refuses to serve, naming the variables', async (name, unit) => {
    const result = await serve(unit.folder, serveArgsOf(unit));
    expect(result.code).toBe(1);
    const problems = result.stderr
      .split('\n')
      .filter((line) => line.startsWith('  - '))
      .map((line) => line.slice(4).split(':')[0]);
    expect({ name, problems }).toEqual({ name, problems: ['GRPC_TLS_CERT_FILE', 'GRPC_TLS_KEY_FILE', 'GRPC_TLS_CA_FILE'] });
  });
});
