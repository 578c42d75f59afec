import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface S3Server {
  /** `http://127.0.0.1:<port>`; use path-style addressing. */
  readonly endpoint: string;
  readonly bucket: string;
  readonly region: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** The S3_* variables (README.md, "Configuration") that point a unit at this server. */
  readonly variables: Readonly<Record<string, string>>;
  /** Stops the server and removes its objects. */
  close(): Promise<void>;
}

/**
 * A real S3-compatible server (s3rver) of the test's own on a random port,
 * keeping objects in a temporary folder, with one bucket created before it
 * listens. s3rver accepts any signature made with its fixed credentials.
 */
export async function startS3Server(bucket = 'latchkey-test'): Promise<S3Server> {
  // Loaded here, not at the top: every test imports this package, few need S3.
  const { default: S3rver } = await import('s3rver');
  const directory = mkdtempSync(path.join(tmpdir(), 'latchkey-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  return {
    endpoint,
    bucket,
    region: 'us-east-1',
    ...credentials,
    variables: {
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_BUCKET: bucket,
      S3_ACCESS_KEY_ID: credentials.accessKeyId,
      S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
    },
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
