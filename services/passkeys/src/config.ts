import { z } from 'zod';
import { callerVariables } from '@latchkey/callees';
import { databaseVariables, env, grpcServiceVariables, loadConfig, natsVariables, processVariables, redisModeProblems, redisVariables } from '@latchkey/config';

/** A web origin as browsers write it in clientDataJSON: scheme, host, port if not the default; no path. */
const origin = z.string().refine(
  (value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
    } catch {
      return false;
    }
  },
  { message: 'must be origins such as https://accounts.example.com, without a path or trailing slash' },
);

/**
 * Whether a browser at `originHost` may use credentials scoped to `rpId`:
 * the RP ID must be the origin's host or a registrable suffix of it
 * (WebAuthn Level 3, "Relying Party Identifier").
 */
function originMayUseRpId(originHost: string, rpId: string): boolean {
  return originHost === rpId || originHost.endsWith(`.${rpId}`);
}

/** Everything the passkeys service reads from its environment. */
export const configSchema = z
  .object({
    ...processVariables,
    ...grpcServiceVariables,
    GRPC_PORT: env.port(50056),
    ...databaseVariables,
    DATABASE_POOL_MAX: env.int(10, 1, 200),
    ...redisVariables,
    ...natsVariables,
    /** identity.v1: the account's email for notices, and the credential ledger (docs/architecture.md, "The credential ledger"). */
    ...callerVariables('passkeys'),
    /**
     * The relying party: the domain passkeys are scoped to (docs/api.md,
     * "Passkeys"). Changing it later orphans every registered passkey.
     */
    WEBAUTHN_RP_ID: z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/, 'must be a domain name such as example.com')
      .default('localhost'),
    /** The name authenticators show beside the account. */
    WEBAUTHN_RP_NAME: z.string().trim().min(1).max(64).default('Latchkey'),
    /** The origins of the pages that run ceremonies (the web app's), comma-separated. */
    WEBAUTHN_ORIGINS: env
      .csv()
      .pipe(z.array(origin).min(1, 'must name at least one origin'))
      .default(['http://localhost:8080']),
  })
  .superRefine((config, context) => {
    for (const value of config.WEBAUTHN_ORIGINS) {
      const url = new URL(value);
      if (!originMayUseRpId(url.hostname, config.WEBAUTHN_RP_ID)) {
        context.addIssue({ code: 'custom', path: ['WEBAUTHN_ORIGINS'], message: `${value} cannot use passkeys of WEBAUTHN_RP_ID ${config.WEBAUTHN_RP_ID}` });
      }
      // Browsers allow WebAuthn over http only on localhost.
      if (config.NODE_ENV === 'production' && url.protocol !== 'https:') {
        context.addIssue({ code: 'custom', path: ['WEBAUTHN_ORIGINS'], message: 'must be https origins when NODE_ENV=production' });
      }
    }
  })
  .superRefine(redisModeProblems);

export type PasskeysConfig = z.output<typeof configSchema>;

export function loadPasskeysConfig(environment: Record<string, string | undefined> = process.env): PasskeysConfig {
  return loadConfig(configSchema, environment);
}
