import { z } from 'zod';
import { env } from '@latchkey/config';

/** What `latchkey-admin` (admin-cli.ts) reads from its environment. */
export const adminCliConfigSchema = z
  .object({
    /** admin.v1's port on this host (identity's own variable, set in its pods). */
    ADMIN_GRPC_PORT: env.port(50061),
    /** Where admin.v1 is served; default this pod's own identity. */
    ADMIN_GRPC_ADDRESS: z.string().optional(),
    /**
     * The operator's platform-client certificate and key (docs/integration.md,
     * "The latchkey-admin command"): admin.v1 takes only certificates of the
     * platform clients' CA, and answers the names its allow-list gives them.
     */
    ADMIN_TLS_CERT_FILE: z.string().optional(),
    ADMIN_TLS_KEY_FILE: z.string().optional(),
    /** The CA bundle that signed identity's certificate; default GRPC_TLS_CA_FILE (identity's pods have it). */
    ADMIN_TLS_CA_FILE: z.string().optional(),
    GRPC_TLS_CA_FILE: z.string().optional(),
  })
  .refine((config) => (config.ADMIN_TLS_CERT_FILE === undefined) === (config.ADMIN_TLS_KEY_FILE === undefined), {
    message: 'ADMIN_TLS_CERT_FILE and ADMIN_TLS_KEY_FILE go together',
    path: ['ADMIN_TLS_KEY_FILE'],
  })
  .refine((config) => config.ADMIN_TLS_CERT_FILE === undefined || (config.ADMIN_TLS_CA_FILE ?? config.GRPC_TLS_CA_FILE) !== undefined, {
    message: 'is required with ADMIN_TLS_CERT_FILE (or GRPC_TLS_CA_FILE): the CA bundle that signed identity’s certificate',
    path: ['ADMIN_TLS_CA_FILE'],
  });

