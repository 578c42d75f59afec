import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { AppError } from '@latchkey/errors';
import { isMissingObject } from './s3-client';

/** Per-request options of the store's calls. */
export interface RequestOptions {
  readonly signal?: AbortSignal;
}

/** Where the store reports a failed request: a pino logger or anything with its `warn`. */
export interface ContentStoreLogger {
  warn(details: Record<string, unknown>, message: string): void;
}

/**
 * Text content in one bucket: what posts writes and reads, and the jobs
 * worker reads to index and deletes after a post is gone. Any failure other
 * than a missing object means the store is unusable (down, overloaded,
 * misconfigured) and becomes `service:unavailable`, logged here since the
 * gRPC layer does not log the errors of the contract.
 */
export class ContentStore {
  constructor(
    private readonly settings: { readonly client: S3Client; readonly bucket: string; readonly logger: ContentStoreLogger },
  ) {}

  /** Creates or overwrites the object; `signal` abandons the request, as when the caller gave up. */
  async write(key: string, content: string, options: RequestOptions = {}): Promise<void> {
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
        { abortSignal: options.signal },
      ),
    );
  }

  /** The content, or undefined when there is no such object. */
  async read(key: string, options: RequestOptions = {}): Promise<string | undefined> {
    try {
      const object = await this.settings.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: key }), {
        abortSignal: options.signal,
      });
      return (await object.Body?.transformToString('utf-8')) ?? '';
    } catch (error) {
      if (isMissingObject(error)) return undefined;
      throw this.unavailable('get', key, error);
    }
  }

  /** Deletes the object; a missing one is fine (S3 answers 204), so a repeated delete succeeds. */
  async remove(key: string, options: RequestOptions = {}): Promise<void> {
    await this.call('delete', key, () =>
      this.settings.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: key }), {
        abortSignal: options.signal,
      }),
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
