import { DeleteObjectCommand, GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { isMissingObject } from '@latchkey/object-store';

/** Post content as the worker needs it: read to index, delete after the post is gone. */
export interface ContentStore {
  /** The content, or undefined when there is no such object (the post was deleted meanwhile). */
  read(key: string): Promise<string | undefined>;
  /** Deletes the object; a missing one is fine, so that a redelivered job succeeds. */
  remove(key: string): Promise<void>;
  close(): void;
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
