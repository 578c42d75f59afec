import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { AppError } from '@latchkey/errors';
import type { Logger } from '@latchkey/telemetry';
import type { PostsConfig } from './config';

/** The object key of a post's content (spec part 2: `posts/{post_id}`). */
export function storageKeyFor(postId: string): string {
  return `posts/${postId}`;
}

/**
 * An S3 client from the S3_* variables. The checksum settings keep the SDK
 * from streaming uploads with chunk framing that S3-compatible stores such
 * as s3rver store inside the object (TOOLCHAIN.md, S3). Short timeouts and
 * one retry: a create waits on this, and a store that does not answer
 * should become a 503 in seconds, not a hung request.
 */
export function createS3Client(
  config: Pick<
    PostsConfig,
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
    maxAttempts: 2,
    requestHandler: { connectionTimeout: 2_000, requestTimeout: 10_000 },
  });
}

function isMissingObject(error: unknown): boolean {
  const e = error as { name?: unknown; $metadata?: { httpStatusCode?: unknown } } | null;
  return e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}

/**
 * Post content in the object store. Any failure other than a missing
 * object means the store is unusable (down, overloaded, misconfigured) and
 * becomes `service:unavailable`, logged here since the gRPC layer does not
 * log the errors of the contract.
 */
export class ContentStore {
  constructor(
    private readonly settings: { readonly client: S3Client; readonly bucket: string; readonly logger: Logger },
  ) {}

  /** Creates or overwrites the object. */
  async write(key: string, content: string): Promise<void> {
    const body = Buffer.from(content, 'utf8');
    await this.call('put', key, () =>
      this.settings.client.send(
        new PutObjectCommand({
          Bucket: this.settings.bucket,
          Key: key,
          Body: body,
          ContentLength: body.length,
          ContentType: 'text/plain; charset=utf-8',
        }),
      ),
    );
  }

  /** The content, or undefined when there is no such object. */
  async read(key: string): Promise<string | undefined> {
    try {
      const object = await this.settings.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: key }));
      return (await object.Body?.transformToString('utf-8')) ?? '';
    } catch (error) {
      if (isMissingObject(error)) return undefined;
      throw this.unavailable('get', key, error);
    }
  }

  /** Deletes the object; a missing one is fine. */
  async remove(key: string): Promise<void> {
    await this.call('delete', key, () =>
      this.settings.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: key })),
    );
  }

  private async call(operation: string, key: string, request: () => Promise<unknown>): Promise<void> {
    try {
      await request();
    } catch (error) {
      throw this.unavailable(operation, key, error);
    }
  }

  private unavailable(operation: string, key: string, error: unknown): AppError {
    this.settings.logger.warn({ err: error, operation, key }, 'object store request failed');
    return new AppError('service:unavailable', 'The object store is unavailable; nothing was changed.', { cause: error });
  }
}
