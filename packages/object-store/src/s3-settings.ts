import { z } from 'zod';
import { env } from '@latchkey/config';

/** The S3_* variables (README.md, "Configuration"), shared by every unit that reads or writes post content. */
export const objectStoreVariables = {
  /** Unset for AWS itself; set for an S3-compatible store. */
  S3_ENDPOINT: env.url(['http', 'https']).optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_BUCKET: z.string().min(3).default('latchkey-posts'),
  /** Both or neither; neither uses the SDK's default chain (instance or pod role). */
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** Path-style URLs (`endpoint/bucket/key`), which most S3-compatible stores need. */
  S3_FORCE_PATH_STYLE: env.bool(false),
};

export type ObjectStoreSettings = Readonly<z.output<ReturnType<typeof z.object<typeof objectStoreVariables>>>>;

/**
 * For a config schema's `.refine(s3CredentialsPaired, s3CredentialsProblem)`:
 * a half-set key pair is a mistake, not a request for the default chain.
 */
export function s3CredentialsPaired(config: Pick<ObjectStoreSettings, 'S3_ACCESS_KEY_ID' | 'S3_SECRET_ACCESS_KEY'>): boolean {
  return (config.S3_ACCESS_KEY_ID === undefined) === (config.S3_SECRET_ACCESS_KEY === undefined);
}

export const s3CredentialsProblem = {
  path: ['S3_SECRET_ACCESS_KEY'],
  message: 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together',
};
