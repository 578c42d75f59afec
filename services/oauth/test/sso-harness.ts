import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { identityV1, orgsV1, ssoV1 } from '@latchkey/contracts';
import type { Running } from '@latchkey/runtime';
import { createLogger, type Logger } from '@latchkey/telemetry';
import {
  createTestDatabase,
  createTestServiceClient,
  startDnsServer,
  testNatsUrl,
  testRedisUrl,
  uniqueName,
  type DnsServer,
  type TestDatabase,
  type TestServiceClient,
} from '@latchkey/test-kit';
import { loadIdentityConfig } from '../../identity/src/config';
import { startIdentityService } from '../../identity/src/identity-service';
import { migrate as migrateIdentity } from '../../identity/src/migrate';
import { loadOAuthConfig } from '../src/config';
import { migrate } from '../src/migrate';
import { startOAuthService } from '../src/oauth-service';

export const SSO_PUBLIC_URL = 'https://auth.latchkey.test';

/** Identity (with a real DNS server for domain proofs) and the oauth unit with SSO on, on one test database. */
export interface SsoHarness {
  readonly identity: TestServiceClient<typeof identityV1.IdentityServiceService>;
  readonly orgs: TestServiceClient<typeof orgsV1.OrganizationsServiceService>;
  readonly sso: TestServiceClient<typeof ssoV1.SsoServiceService>;
  /** The test database, for observing what the units wrote. */
  readonly db: pg.Pool;
  /** A verified account with a password. */
  newAccount(): Promise<identityV1.User>;
  /** An organisation owned by a new account, with a domain verified through DNS. */
  newOrganization(): Promise<{ owner: identityV1.User; organization: orgsV1.Organization; domain: string }>;
  close(): Promise<void>;
}

export async function startSsoHarness(options: { oauthLogger?: Logger; oauthEnvironment?: Record<string, string> } = {}): Promise<SsoHarness> {
  const silent = createLogger({ service: 'sso-test', level: 'silent' });
  const dns: DnsServer = await startDnsServer();
  const database: TestDatabase = await createTestDatabase('oauth_sso');
  const prefix = uniqueName('oauth_sso');
  const identityConfig = loadIdentityConfig({
    DATABASE_URL: database.url,
    NATS_URL: testNatsUrl(),
    NATS_SUBJECT_PREFIX: prefix,
    REDIS_URL: testRedisUrl(),
    REDIS_KEY_PREFIX: `${prefix}:identity:`,
    GRPC_PORT: '0',
    ADMIN_GRPC_PORT: '0',
    METRICS_PORT: '0',
    DNS_SERVERS: dns.address,
  });
  await migrateIdentity(identityConfig, silent);
  await migrate({ DATABASE_URL: database.url }, silent);
  const identityService: Running = await startIdentityService(identityConfig, silent);
  const identityAddress = `127.0.0.1:${String(identityService.readyFields?.grpc_port)}`;
  const oauthService: Running = await startOAuthService(
    loadOAuthConfig({
      NODE_ENV: 'test',
      DATABASE_URL: database.url,
      REDIS_URL: testRedisUrl(),
      REDIS_KEY_PREFIX: `${prefix}:oauth:`,
      NATS_URL: testNatsUrl(),
      NATS_SUBJECT_PREFIX: prefix,
      IDENTITY_GRPC_ADDRESS: identityAddress,
      GRPC_PORT: '0',
      METRICS_PORT: '0',
      SSO_PUBLIC_URL,
      SSO_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      ...options.oauthEnvironment,
    }),
    options.oauthLogger ?? silent,
  );
  const identity = createTestServiceClient(identityV1.IdentityServiceService, identityAddress);
  const orgs = createTestServiceClient(orgsV1.OrganizationsServiceService, identityAddress);
  const sso = createTestServiceClient(ssoV1.SsoServiceService, `127.0.0.1:${String(oauthService.readyFields?.grpc_port)}`);
  const db = new pg.Pool({ connectionString: database.url });

  const newAccount = async (): Promise<identityV1.User> => {
    const { user } = await identity.registerUser({
      handle: `u_${randomBytes(6).toString('hex')}`,
      email: `${randomUUID()}@owner.test`,
      password: 'correct horse battery',
    });
    // Verified as the password was set: the owner's own password, as after a reset.
    await db.query('UPDATE identity.users SET email_verified_at = password_set_at WHERE id = $1', [user!.id]);
    return user!;
  };

  return {
    identity,
    orgs,
    sso,
    db,
    newAccount,
    async newOrganization() {
      const owner = await newAccount();
      const { organization } = await orgs.createOrganization({ actorUserId: owner.id, name: 'Acme', slug: `acme-${randomBytes(5).toString('hex')}` });
      const domain = `acme-${randomBytes(5).toString('hex')}.test`;
      const { domain: claimed } = await orgs.addDomain({ actorUserId: owner.id, organizationId: organization!.id, domain });
      dns.answer(claimed!.verificationName, { txt: [claimed!.verificationValue] });
      await orgs.verifyDomain({ actorUserId: owner.id, organizationId: organization!.id, domain });
      return { owner, organization: organization!, domain };
    },
    async close() {
      sso.close();
      identity.close();
      orgs.close();
      await oauthService.stop();
      await identityService.stop();
      const redis = new Redis(testRedisUrl());
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
      await db.end();
      await database.drop();
      await dns.close();
    },
  };
}

/** A browser: the hash of the secret the gateway left in its binding cookie. */
export function newBrowser(): string {
  return randomBytes(32).toString('base64url');
}
