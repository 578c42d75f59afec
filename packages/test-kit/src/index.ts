export { testDatabaseAdminUrl, testRedisUrl, testNatsUrl } from './backing-services';
export { uniqueName } from './unique-name';
export { createTestDatabase, type TestDatabase } from './test-database';
export { waitFor } from './wait-for';
export { freePort } from './free-port';
export { startSmtpSink, tokenFromMail, type SmtpSink, type ReceivedMail } from './smtp-sink';
export { startProcess, type ManagedProcess } from './managed-process';
export { startOwnNatsServer, type OwnNatsServer } from './nats-server';
export { startS3Server, type S3Server } from './s3-server';
