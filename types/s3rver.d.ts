// s3rver 3.7 ships JavaScript only; these are the parts of its API
// (lib/s3rver.js) the local stack uses.
declare module 's3rver' {
  import type { AddressInfo } from 'node:net';

  interface S3rverBucket {
    readonly name: string;
    /** CORS or website configuration documents (XML). */
    readonly configs?: readonly (string | Buffer)[];
  }

  interface S3rverOptions {
    /** Default `localhost`. */
    readonly address?: string;
    /** Default 4568; 0 for any free port. */
    readonly port?: number;
    readonly silent?: boolean;
    /** Where buckets and objects are kept on disk. */
    readonly directory?: string;
    readonly resetOnClose?: boolean;
    readonly allowMismatchedSignatures?: boolean;
    readonly vhostBuckets?: boolean;
    readonly serviceEndpoint?: string;
    /** Buckets created (if missing) before the server listens. */
    readonly configureBuckets?: readonly S3rverBucket[];
  }

  class S3rver {
    constructor(options?: S3rverOptions);
    /** Creates the configured buckets, then listens. */
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }

  export = S3rver;
}
