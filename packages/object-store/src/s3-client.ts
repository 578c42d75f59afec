import { S3Client } from '@aws-sdk/client-s3';
import type { ObjectStoreSettings } from './s3-settings';

/**
 * An S3 client from the S3_* variables. The checksum settings keep the SDK
 * from streaming uploads with chunk framing and from expecting checksums,
 * which S3-compatible stores such as s3rver store inside the object or do
 * not send. Callers choose timeouts for their own waits.
 */
export function createS3Client(
  settings: Omit<ObjectStoreSettings, 'S3_BUCKET'>,
  limits: { readonly connectionTimeoutMs: number; readonly requestTimeoutMs: number; readonly maxAttempts?: number },
): S3Client {
  return new S3Client({
    region: settings.S3_REGION,
    endpoint: settings.S3_ENDPOINT,
    forcePathStyle: settings.S3_FORCE_PATH_STYLE,
    credentials:
      settings.S3_ACCESS_KEY_ID && settings.S3_SECRET_ACCESS_KEY
        ? { accessKeyId: settings.S3_ACCESS_KEY_ID, secretAccessKey: settings.S3_SECRET_ACCESS_KEY }
        : undefined,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...(limits.maxAttempts === undefined ? {} : { maxAttempts: limits.maxAttempts }),
    requestHandler: { connectionTimeout: limits.connectionTimeoutMs, requestTimeout: limits.requestTimeoutMs },
  });
}

/** S3 answers a missing key with NoSuchKey, some compatible stores with a bare 404. */
export function isMissingObject(error: unknown): boolean {
  const e = error as { name?: unknown; $metadata?: { httpStatusCode?: unknown } } | null;
  return e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}
