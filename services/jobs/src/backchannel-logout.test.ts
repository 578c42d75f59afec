import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { signingKeysSchema, type SigningAlgorithm } from '@latchkey/config';
import { startRequestContext } from '@latchkey/grpc-kit';
import { createLogger } from '@latchkey/telemetry';
import { backchannelLogoutJob } from './backchannel-logout';

const keys = signingKeysSchema.parse(
  JSON.stringify([
    { kid: 'ed', ...generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) },
    { kid: 'rsa', ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }) },
    { kid: 'ec', ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) },
  ]),
);
const published = createLocalJWKSet({ keys: keys.map((key) => ({ ...key.publicJwk })) });
const ISSUER = 'https://accounts.example.com';

let server: Server;
let received: string[];
let endpoint: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      received.push(new URLSearchParams(body).get('logout_token') ?? '');
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/logout`;
});

beforeEach(() => (received = []));
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('backchannelLogoutJob()', () => {
  it.each<[SigningAlgorithm, string]>([
    ['RS256', 'rsa'],
    ['ES256', 'ec'],
    ['EdDSA', 'ed'],
  ])('signs the logout token of a %s client with that algorithm, verifiable with the published keys', async (alg, kid) => {
    const job = backchannelLogoutJob({ keys, issuer: ISSUER, production: false });
    const userId = randomUUID();
    const started = startRequestContext({ requestId: 'logout-test', logger: createLogger({ service: 'jobs', level: 'silent' }), deadline: Date.now() + 5_000 });
    const payload = { client_id: 'app', backchannel_logout_uri: endpoint, user_id: userId, session_id: 'sid-1', session_required: true, signing_alg: alg };
    await expect(job.handle(payload, { ...started.context, jobId: 'job-1' }).finally(() => started.end())).resolves.toBe('completed');

    expect(received).toHaveLength(1);
    expect(decodeProtectedHeader(received[0]!)).toMatchObject({ alg, kid, typ: 'logout+jwt' });
    const { payload: claims } = await jwtVerify(received[0]!, published, { issuer: ISSUER, audience: 'app', typ: 'logout+jwt', algorithms: [alg] });
    expect(claims).toMatchObject({ sub: userId, sid: 'sid-1', events: { 'http://schemas.openid.net/event/backchannel-logout': {} } });
  });
});
