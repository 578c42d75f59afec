export { testDatabaseAdminUrl, testRedisUrl, testNatsUrl } from './backing-services';
export { uniqueName } from './unique-name';
export { createTestDatabase, dropTestDatabase, type TestDatabase } from './test-database';
export { waitFor } from './wait-for';
export { freePort } from './free-port';
export { startSmtpSink, tokenFromMail, type SmtpSink, type ReceivedMail } from './smtp-sink';
export { startProcess, type ManagedProcess } from './managed-process';
export { runNodeScript, type CommandResult } from './run-command';
export { startOwnNatsServer, type OwnNatsServer } from './nats-server';
export { startNatsCluster, type OwnNatsCluster, type NatsClusterServer } from './nats-cluster';
export { startRedisCluster, type OwnRedisCluster, type RedisClusterNode } from './redis-cluster';
export { startSentinelGroup, type OwnSentinelGroup } from './redis-sentinel';
export { startOwnRedisServer, type OwnRedisServer } from './redis-server';
export { startPostgresCluster, type OwnPostgresCluster, type PostgresServer } from './postgres-cluster';
export { startPgBouncer, type OwnPgBouncer } from './pgbouncer';
export { startS3Server, type S3Server } from './s3-server';
export { startHungRedis, type HungRedis } from './hung-redis';
export { createTestServiceClient, testRequestContext, type TestServiceClient } from './service-test-client';
export { startSilentServer, type SilentServer } from './silent-server';
export {
  createTestCertificateAuthority,
  testSigningKeys,
  type CertificateFiles,
  type IssueOptions,
  type TestCertificateAuthority,
} from './test-certificates';
export {
  SoftwareAuthenticator,
  SOFTWARE_AUTHENTICATOR_AAGUID,
  type CeremonyOverrides,
  type CreationOptionsJson,
  type RequestOptionsJson,
  type SoftwareAuthenticatorOptions,
} from './software-authenticator';
export { startFakeOpenSearch, type FakeOpenSearch } from './fake-opensearch';
export { startDnsServer, type DnsBehaviour, type DnsServer } from './dns-server';
