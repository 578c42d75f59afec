import { createHash, createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/**
 * A WebAuthn authenticator in software, with the browser around it: it
 * answers creation and request options (as the Level 3 JSON a server sends)
 * with registration and authentication responses (as the JSON a browser
 * posts back), signing with ES256 keys it keeps. Attestation is `none`.
 * Every part a relying party checks can be bent per call (origin, RP ID,
 * flags, counter), which is what negative tests need.
 *
 * The CBOR it writes is encoded here, not by the library the server uses,
 * so that a test does not check the library against itself.
 */
export interface SoftwareAuthenticatorOptions {
  /** The page the browser runs the ceremony on, as clientDataJSON names it. */
  readonly origin: string;
  /** Whether it keeps a signature counter (security keys do; synced passkeys report 0). Default true. */
  readonly countsSignatures?: boolean;
}

/** What a single ceremony may do differently from an honest browser and authenticator. */
export interface CeremonyOverrides {
  readonly origin?: string;
  /** Signs the SHA-256 of this RP ID instead of the one in the options. */
  readonly rpId?: string;
  /** The user-verified flag (default true). */
  readonly userVerified?: boolean;
  /** Answers this challenge instead of the one in the options. */
  readonly challenge?: string;
  /** For an assertion: report this counter, without moving the stored one. */
  readonly counter?: number;
  /**
   * For an assertion: use this credential (base64url id) instead of the
   * newest one for the RP. For a registration: register this credential
   * again (its id and key), as a second account would present a key it
   * copied.
   */
  readonly credentialId?: string;
  /** For an assertion: the user handle to report instead of the credential's. */
  readonly userHandle?: string;
}

interface StoredCredential {
  readonly id: Buffer;
  readonly rpId: string;
  readonly userHandle: string;
  readonly privateKey: KeyObject;
  counter: number;
}

/** The parts of PublicKeyCredentialCreationOptionsJSON an authenticator reads. */
export interface CreationOptionsJson {
  readonly challenge: string;
  readonly rp: { readonly id?: string; readonly name: string };
  readonly user: { readonly id: string; readonly name: string; readonly displayName: string };
  readonly pubKeyCredParams: readonly { readonly alg: number }[];
  readonly excludeCredentials?: readonly { readonly id: string }[];
  readonly authenticatorSelection?: { readonly residentKey?: string; readonly userVerification?: string };
}

/** The parts of PublicKeyCredentialRequestOptionsJSON an authenticator reads. */
export interface RequestOptionsJson {
  readonly challenge: string;
  readonly rpId?: string;
  readonly allowCredentials?: readonly { readonly id: string }[];
  readonly userVerification?: string;
}

const ES256 = -7;
const FLAG_USER_PRESENT = 0x01;
const FLAG_USER_VERIFIED = 0x04;
const FLAG_ATTESTED_CREDENTIAL_DATA = 0x40;
/** A made-up model id, so that a stored AAGUID can be told from the all-zero one of an authenticator that names none. */
export const SOFTWARE_AUTHENTICATOR_AAGUID = '5f2d1c3e-8b7a-4e6f-9a0b-1c2d3e4f5a6b';

export class SoftwareAuthenticator {
  private readonly credentials: StoredCredential[] = [];

  constructor(private readonly options: SoftwareAuthenticatorOptions) {}

  /** The credential ids it holds, base64url, oldest first. */
  get credentialIds(): string[] {
    return this.credentials.map((credential) => credential.id.toString('base64url'));
  }

  /** navigator.credentials.create(): a new ES256 credential, answered as RegistrationResponseJSON. */
  register(creation: CreationOptionsJson, overrides: CeremonyOverrides = {}): Record<string, unknown> {
    if (!creation.pubKeyCredParams.some((param) => param.alg === ES256)) throw new Error('NotSupportedError: ES256 is not offered');
    const excluded = new Set((creation.excludeCredentials ?? []).map((credential) => credential.id));
    if (overrides.credentialId === undefined && this.credentialIds.some((id) => excluded.has(id))) throw new Error('InvalidStateError: this authenticator is registered already');
    const rpId = creation.rp.id ?? new URL(this.options.origin).hostname;
    const reused = this.credentials.find((candidate) => candidate.id.toString('base64url') === overrides.credentialId);
    const privateKey = reused?.privateKey ?? generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const credential: StoredCredential = reused ?? { id: randomBytes(32), rpId, userHandle: creation.user.id, privateKey, counter: 0 };
    const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
    const coseKey = cborMap([
      [1, 2],
      [3, ES256],
      [-1, 1],
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]);
    const credentialIdLength = Buffer.alloc(2);
    credentialIdLength.writeUInt16BE(credential.id.length);
    const authenticatorData = Buffer.concat([
      this.authenticatorDataHeader(overrides.rpId ?? rpId, FLAG_ATTESTED_CREDENTIAL_DATA, overrides, this.nextCounter(credential)),
      Buffer.from(SOFTWARE_AUTHENTICATOR_AAGUID.replace(/-/g, ''), 'hex'),
      credentialIdLength,
      credential.id,
      coseKey,
    ]);
    const attestationObject = cborMap([
      ['fmt', 'none'],
      ['attStmt', { encoded: cborMap([]) }],
      ['authData', authenticatorData],
    ]);
    if (!reused) this.credentials.push(credential);
    return publicKeyCredential(credential, {
      clientDataJSON: this.clientData('webauthn.create', creation.challenge, overrides),
      attestationObject: attestationObject.toString('base64url'),
      transports: ['internal'],
    });
  }

  /** navigator.credentials.get(): an assertion, answered as AuthenticationResponseJSON. */
  authenticate(request: RequestOptionsJson, overrides: CeremonyOverrides = {}): Record<string, unknown> {
    const rpId = request.rpId ?? new URL(this.options.origin).hostname;
    const allowed = new Set((request.allowCredentials ?? []).map((credential) => credential.id));
    const candidates = this.credentials.filter(
      (credential) =>
        credential.rpId === rpId &&
        (overrides.credentialId === undefined || credential.id.toString('base64url') === overrides.credentialId) &&
        (allowed.size === 0 || allowed.has(credential.id.toString('base64url'))),
    );
    const credential = candidates.at(-1);
    if (!credential) throw new Error('NotAllowedError: no credential for this relying party');
    const counter = overrides.counter ?? this.nextCounter(credential);
    const authenticatorData = this.authenticatorDataHeader(overrides.rpId ?? rpId, 0, overrides, counter);
    const clientDataJSON = this.clientData('webauthn.get', request.challenge, overrides);
    const clientDataHash = createHash('sha256').update(Buffer.from(clientDataJSON, 'base64url')).digest();
    const signature = sign('sha256', Buffer.concat([authenticatorData, clientDataHash]), credential.privateKey);
    return publicKeyCredential(credential, {
      clientDataJSON,
      authenticatorData: authenticatorData.toString('base64url'),
      signature: signature.toString('base64url'),
      userHandle: overrides.userHandle ?? credential.userHandle,
    });
  }

  private nextCounter(credential: StoredCredential): number {
    if (this.options.countsSignatures === false) return 0;
    credential.counter += 1;
    return credential.counter;
  }

  private authenticatorDataHeader(rpId: string, extraFlags: number, overrides: CeremonyOverrides, counter: number): Buffer {
    const flags = FLAG_USER_PRESENT | (overrides.userVerified === false ? 0 : FLAG_USER_VERIFIED) | extraFlags;
    const counterBytes = Buffer.alloc(4);
    counterBytes.writeUInt32BE(counter);
    return Buffer.concat([createHash('sha256').update(rpId).digest(), Buffer.from([flags]), counterBytes]);
  }

  private clientData(type: string, challenge: string, overrides: CeremonyOverrides): string {
    const clientData = { type, challenge: overrides.challenge ?? challenge, origin: overrides.origin ?? this.options.origin, crossOrigin: false };
    return Buffer.from(JSON.stringify(clientData)).toString('base64url');
  }
}

/** A number, a text string, a byte string, or an item encoded already (a nested map). */
type CborValue = number | string | Buffer | { readonly encoded: Buffer };

/** RFC 8949 head: major type and argument. */
/** The PublicKeyCredential a browser hands the page, in the JSON form both ceremonies answer with. */
function publicKeyCredential(credential: StoredCredential, response: Record<string, unknown>): Record<string, unknown> {
  const id = credential.id.toString('base64url');
  return { id, rawId: id, type: 'public-key', authenticatorAttachment: 'platform', clientExtensionResults: {}, response };
}

function cborHead(major: number, argument: number): Buffer {
  if (argument < 24) return Buffer.from([(major << 5) | argument]);
  if (argument < 0x100) return Buffer.from([(major << 5) | 24, argument]);
  if (argument < 0x10000) return Buffer.from([(major << 5) | 25, argument >> 8, argument & 0xff]);
  const head = Buffer.alloc(5);
  head[0] = (major << 5) | 26;
  head.writeUInt32BE(argument, 1);
  return head;
}

function cborItem(value: CborValue): Buffer {
  if (typeof value === 'object' && !Buffer.isBuffer(value)) return value.encoded;
  if (Buffer.isBuffer(value)) return Buffer.concat([cborHead(2, value.length), value]);
  if (typeof value === 'string') {
    const text = Buffer.from(value, 'utf8');
    return Buffer.concat([cborHead(3, text.length), text]);
  }
  return value >= 0 ? cborHead(0, value) : cborHead(1, -1 - value);
}

/** A CBOR map of the given entries, in the order given (COSE and attestation objects need no canonical order here). */
function cborMap(entries: readonly (readonly [number | string, CborValue])[]): Buffer {
  return Buffer.concat([cborHead(5, entries.length), ...entries.flatMap(([key, value]) => [cborItem(key), cborItem(value)])]);
}
