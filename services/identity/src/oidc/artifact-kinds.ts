import { AppError } from '@latchkey/errors';

/** The provider's models that identity keeps (docs/decisions/0002-openid-provider.md). */
export const artifactKinds = ['Grant', 'AuthorizationCode', 'DeviceCode', 'AccessToken', 'RefreshToken'] as const;
export type ArtifactKind = (typeof artifactKinds)[number];

/** A kind a caller named, checked. */
export function assertKind(kind: string): ArtifactKind {
  if (!(artifactKinds as readonly string[]).includes(kind)) throw new AppError('validation:invalid_input', `unknown artifact kind ${kind}`);
  return kind as ArtifactKind;
}
