import type { passkeysV1 } from '@latchkey/contracts';
import type { StoredPasskey } from './passkey-store';

/** A stored passkey as passkeys.v1 shows it: never its key or credential id. */
export function passkeyMessage(passkey: StoredPasskey): passkeysV1.Passkey {
  return {
    id: passkey.id,
    name: passkey.name,
    createdAt: passkey.createdAt,
    lastUsedAt: passkey.lastUsedAt ?? undefined,
    aaguid: passkey.aaguid,
    backupEligible: passkey.backupEligible,
    backedUp: passkey.backedUp,
    transports: [...passkey.transports],
    suspectedClone: passkey.suspectedCloneAt !== null,
  };
}
