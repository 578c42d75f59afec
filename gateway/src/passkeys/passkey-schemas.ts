import { z } from 'zod';
import { timestamp } from '../http/fields';
import { credentialResponseField } from '../http/proof-fields';

export const passkeyNameField = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(64, 'must be at most 64 characters')
  .regex(/^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]*$/u, 'must be one line of printable text')
  .describe('What the user calls it, such as “Work laptop”; 1 to 64 characters.');

export const passkeySchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    created_at: timestamp,
    last_used_at: timestamp.nullable(),
    aaguid: z.uuid().describe('The authenticator model; all zeros when it does not say.'),
    backup_eligible: z.boolean().describe('Whether it can be synced to the user’s other devices.'),
    backed_up: z.boolean().describe('Whether it is synced now.'),
    transports: z.array(z.string()),
    suspected_clone: z
      .boolean()
      .describe('Whether a sign-in with it reported a signature counter that did not grow, as a copy of its key would: it signs in to nothing any more, and should be removed.'),
  })
  .meta({ id: 'Passkey' });

export const passkeyListSchema = z.object({ items: z.array(passkeySchema) });
export const passkeyIdParams = z.object({ id: z.uuid('must be a passkey id') });
export const registrationBody = z.object({ response: credentialResponseField, name: passkeyNameField.optional() });
export const authenticationBody = z.object({ response: credentialResponseField });
export const renameBody = z.object({ name: passkeyNameField });

/** PublicKeyCredentialCreationOptionsJSON: what `PublicKeyCredential.parseCreationOptionsFromJSON()` takes. */
export const creationOptionsSchema = z
  .looseObject({
    challenge: z.string(),
    rp: z.looseObject({ id: z.string(), name: z.string() }),
    user: z.looseObject({ id: z.string(), name: z.string(), displayName: z.string() }),
    pubKeyCredParams: z.array(z.looseObject({ type: z.string(), alg: z.number() })),
    excludeCredentials: z.array(z.looseObject({ id: z.string(), type: z.string() })),
    authenticatorSelection: z.looseObject({ residentKey: z.string(), userVerification: z.string() }),
  })
  .meta({ id: 'PasskeyCreationOptions' });

/** PublicKeyCredentialRequestOptionsJSON: what `PublicKeyCredential.parseRequestOptionsFromJSON()` takes. */
export const requestOptionsSchema = z
  .looseObject({
    challenge: z.string(),
    rpId: z.string(),
    userVerification: z.string(),
  })
  .meta({ id: 'PasskeyRequestOptions' });
