import type { oidcV1 } from '@latchkey/contracts';
import type { KoaContextWithOIDC } from 'oidc-provider';

/** The claims identity answered for an account beside one of its tokens. */
export type RememberedAccount = oidcV1.ArtifactAccount;

/**
 * What the provider's storage keeps for the length of one provider request
 * (docs/oidc.md, "Tokens"): the grant and account that identity answered
 * beside a token or code, or beside the account's grant for the client of
 * an authorization request, which the provider reads right after it; the
 * writes of a token request held back until its access token is saved, so
 * that consuming the code or refresh token and saving what it is exchanged
 * for are one call and one transaction.
 */
export interface RequestMemory {
  /** Grants by id, as JSON (each read parses its own copy); null: identity said there is none. */
  readonly grants: Map<string, string | null>;
  /** Accounts by id; null: gone or disabled. */
  readonly accounts: Map<string, RememberedAccount | null>;
  /** The account's grant for a client, by client id; null: there is none. */
  readonly userGrants: Map<string, string | null>;
  /** Identity's answer for a token value looked up as either an access or a refresh token, by value. */
  readonly tokenLookups: Map<string, Promise<oidcV1.FindArtifactResponse>>;
  /** The code or refresh token this token request exchanges, consumed with the tokens it issues. */
  source: oidcV1.ConsumeArtifactRequest | undefined;
  /** Artifacts to save with the access token (the rotated refresh token), while a source waits. */
  readonly held: oidcV1.SaveArtifactRequest[];
}

const memories = new WeakMap<object, RequestMemory>();

/** The memory of the provider request being served, created on first use; undefined outside one. */
export function requestMemory(ctx: KoaContextWithOIDC | undefined): RequestMemory | undefined {
  if (!ctx) return undefined;
  let memory = memories.get(ctx);
  if (!memory) {
    memory = { grants: new Map(), accounts: new Map(), userGrants: new Map(), tokenLookups: new Map(), source: undefined, held: [] };
    memories.set(ctx, memory);
  }
  return memory;
}
