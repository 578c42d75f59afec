import type { PasskeysConfig } from './config';

/** The website passkeys are registered with, as the ceremonies check it. */
export interface RelyingParty {
  /** The domain credentials are scoped to; authenticators sign its SHA-256. */
  readonly id: string;
  /** The name authenticators show. */
  readonly name: string;
  /** Where ceremonies may run: the origin in clientDataJSON must be one of these. */
  readonly origins: readonly string[];
}

export function relyingPartyOf(config: Pick<PasskeysConfig, 'WEBAUTHN_RP_ID' | 'WEBAUTHN_RP_NAME' | 'WEBAUTHN_ORIGINS'>): RelyingParty {
  return { id: config.WEBAUTHN_RP_ID, name: config.WEBAUTHN_RP_NAME, origins: config.WEBAUTHN_ORIGINS };
}
