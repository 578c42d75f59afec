import { z } from 'zod';
import { env } from '@latchkey/config';
import { adminV1 } from '@latchkey/contracts';
import { EVERY_METHOD } from '@latchkey/grpc-kit';

/** admin.v1's RPCs by their proto names (`FindUser`), as operators list them. */
export const adminRpcNames: readonly string[] = Object.values(adminV1.AdminServiceService).map((method) =>
  method.path.slice(method.path.lastIndexOf('/') + 1),
);

/**
 * ADMIN_GRPC_ALLOWED_CALLERS (docs/integration.md, "Administration"): a JSON
 * object from an RPC name, or `*` for every one, to the subject alternative
 * names (DNS or URI) of the platform clients' certificates that may call it,
 * e.g. `{"*": ["urn:latchkey:admin-cli"], "FindUser": ["spiffe://example.org/support-desk"]}`.
 * A misspelt RPC is refused at start rather than silently allowing nobody.
 */
export const adminAllowedCallersSchema = env
  .json('a JSON object of RPC name (or "*") to a list of certificate names', '{}')
  .pipe(
    z.record(z.string(), z.array(z.string().min(1))).superRefine((allowList, context) => {
      for (const name of Object.keys(allowList)) {
        if (name === EVERY_METHOD || adminRpcNames.includes(name)) continue;
        context.addIssue({ code: 'custom', path: [name], message: `must be "*" or an admin.v1 RPC (${adminRpcNames.join(', ')})` });
      }
    }),
  );
