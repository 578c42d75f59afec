import type { passkeysV1 } from '@latchkey/contracts';
import type { z } from 'zod';
import type { passkeySchema } from './passkey-schemas';

/** `{passkey}` of docs/api.md, "Passkeys". */
export function passkeyView(passkey: passkeysV1.Passkey): z.output<typeof passkeySchema> {
  return {
    id: passkey.id,
    name: passkey.name,
    created_at: (passkey.createdAt ?? new Date(0)).toISOString(),
    last_used_at: passkey.lastUsedAt?.toISOString() ?? null,
    aaguid: passkey.aaguid,
    backup_eligible: passkey.backupEligible,
    backed_up: passkey.backedUp,
    transports: passkey.transports,
    suspected_clone: passkey.suspectedClone,
  };
}
