import { generateKeyPairSync } from 'node:crypto';
import { Redis } from 'ioredis';
import { createLogger } from '@latchkey/telemetry';
import { buildApp } from './app';
import { loadGatewayConfig } from './config';
import { createGatewayDeps } from './gateway-wiring';

/**
 * The OpenAPI 3.1 document the gateway serves at /v0/openapi.json, built
 * from the same wiring without connecting to anything: what
 * `packages/client` is generated from (tools/codegen/generate-client.mjs).
 * Throwaway signing keys stand in for the configured ones, which the
 * document does not show: an Ed25519 one, and the RSA one the OpenID
 * Provider needs.
 */
export async function openApiDocument(): Promise<unknown> {
  const signingKeys = [
    { ...generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }), kid: 'openapi-document' },
    { ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }), kid: 'openapi-document-rs256' },
  ];
  const config = loadGatewayConfig({
    PUBLIC_APP_URL: 'http://localhost:8080',
    REDIS_URL: 'redis://127.0.0.1:6379',
    AUTH_JWT_SIGNING_KEYS: JSON.stringify(signingKeys),
    // The app's files are no part of the API: the document must not depend on whether they are built.
    WEB_APP_ENABLED: 'false',
    // The /v0/oidc routes are part of the API, whether or not an installation turns the provider on.
    OIDC_ENABLED: 'true',
    LOG_LEVEL: 'silent',
  });
  const logger = createLogger({ service: 'gateway', level: 'silent' });
  // Never connected: building the routes needs a client, not a server.
  const redis = new Redis({ lazyConnect: true });
  const { deps, close } = createGatewayDeps(config, logger, redis);
  const app = await buildApp(deps);
  try {
    await app.ready();
    return app.swagger();
  } finally {
    await app.close();
    close();
    redis.disconnect();
  }
}
