import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { E2eStack } from './e2e-stack';

/** Every key in the stack's bucket, read straight from the object store. */
export async function storedKeys(stack: E2eStack): Promise<string[]> {
  const client = new S3Client({
    endpoint: stack.env.S3_ENDPOINT,
    region: stack.env.S3_REGION ?? 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: stack.env.S3_ACCESS_KEY_ID!, secretAccessKey: stack.env.S3_SECRET_ACCESS_KEY! },
  });
  try {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket: stack.env.S3_BUCKET, ContinuationToken: token }));
      keys.push(...(page.Contents ?? []).map((object) => object.Key ?? ''));
      token = page.NextContinuationToken;
    } while (token);
    return keys.sort();
  } finally {
    client.destroy();
  }
}
