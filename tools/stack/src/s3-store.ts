import { mkdir } from 'node:fs/promises';
import S3rver from 's3rver';

export interface S3Store {
  /** `http://127.0.0.1:<port>`, for S3_ENDPOINT (path-style addressing). */
  readonly endpoint: string;
  readonly bucket: string;
  readonly directory: string;
  close(): Promise<void>;
}

/**
 * An S3-compatible store (s3rver) on 127.0.0.1 that keeps objects under
 * `directory`, so posts' media survive a restart like the database does.
 * The bucket is created before it listens: nothing has to provision it.
 */
export async function startS3Store(options: { directory: string; port: number; bucket: string }): Promise<S3Store> {
  await mkdir(options.directory, { recursive: true });
  const server = new S3rver({
    address: '127.0.0.1',
    port: options.port,
    directory: options.directory,
    silent: true,
    configureBuckets: [{ name: options.bucket }],
  });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket: options.bucket,
    directory: options.directory,
    close: () => server.close(),
  };
}
