import { DeleteObjectCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { JobsConfig } from './config';

/**
 * An S3 client from the S3_* variables. The checksum settings keep the SDK
 * from expecting checksums that S3-compatible stores such as s3rver do not
 * send (TOOLCHAIN.md, S3). Timeouts stay well below the consumer's 30 s
 * ack wait; a failed request fails the job, which is retried.
 */
export function createS3Client(
  config: Pick<
    JobsConfig,
    'S3_ENDPOINT' | 'S3_REGION' | 'S3_ACCESS_KEY_ID' | 'S3_SECRET_ACCESS_KEY' | 'S3_FORCE_PATH_STYLE'
  >,
): S3Client {
  return new S3Client({
    region: config.S3_REGION,
    endpoint: config.S3_ENDPOINT,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    credentials:
      config.S3_ACCESS_KEY_ID && config.S3_SECRET_ACCESS_KEY
        ? { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY }
        : undefined,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 15_000 },
  });
}

/** Post content as the worker needs it: read to index, delete after the post is gone. */
export interface ContentStore {
  /** The content, or undefined when there is no such object (the post was deleted meanwhile). */
  read(key: string): Promise<string | undefined>;
  /** Deletes the object; a missing one is fine, so that a redelivered job succeeds. */
  remove(key: string): Promise<void>;
  close(): void;
}

function isMissingObject(error: unknown): boolean {
  const e = error as { name?: unknown; $metadata?: { httpStatusCode?: unknown } } | null;
  return e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}

export function createContentStore(client: S3Client, bucket: string): ContentStore {
  return {
    async read(key) {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return (await object.Body?.transformToString('utf-8')) ?? '';
      } catch (error) {
        if (isMissingObject(error)) return undefined;
        throw error;
      }
    },
    async remove(key) {
      // S3 answers 204 for a key that does not exist; DeleteObject is idempotent.
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
    close() {
      client.destroy();
    },
  };
}
