import { LRUCache } from 'lru-cache';
import type { AdapterPayload } from 'oidc-provider';
import type { Logger } from '@latchkey/telemetry';
import { withOwnRequestContext } from '@latchkey/grpc-kit';
import { requestContextOf } from './provider-context';
import { currentProviderContext } from './provider-runtime';
import type { OidcClient } from '../service-clients';
import { CLIENT_ID, hashClientSecret, providerMetadataOf, type ClientEntry } from '@latchkey/oidc-clients';

/** How long a client registered through admin.v1 is remembered: a change reaches the token endpoint within it. */
const STORED_CLIENT_TTL_MS = 5_000;
/**
 * Registered clients one gateway remembers, known and unknown alike: a
 * caller that sends a new client id with every request costs a look-up,
 * never memory beyond this.
 */
const STORED_CLIENT_MAX_ENTRIES = 10_000;
const LOOKUP_BUDGET_MS = 2_000;

/** What is remembered of a client id: its metadata, or that identity has no such client. */
type Remembered = { readonly metadata: Record<string, unknown> | undefined };

/**
 * The provider's clients: those of OIDC_CLIENTS (configuration, for GitOps)
 * and those registered through admin.v1 (kept by identity, remembered for a
 * few seconds, in a bounded cache). A configured client id wins over a
 * registered one; an id that no client could have is refused before any
 * look-up.
 */
export class ClientRegistry {
  private readonly configured: ReadonlyMap<string, Record<string, unknown>>;
  private readonly stored = new LRUCache<string, Remembered>({ max: STORED_CLIENT_MAX_ENTRIES, ttl: STORED_CLIENT_TTL_MS });

  constructor(
    entries: readonly ClientEntry[],
    private readonly oidc: OidcClient,
    private readonly logger: Logger,
  ) {
    this.configured = new Map(
      entries.map((entry) => [entry.client_id, providerMetadataOf(entry, entry.client_secret === undefined ? undefined : hashClientSecret(entry.client_secret))]),
    );
  }

  /** The configured clients, for the provider's static `clients`. */
  configuredMetadata(): Record<string, unknown>[] {
    return [...this.configured.values()];
  }

  /** A client's metadata as the provider knows it, configured or registered. */
  async metadata(clientId: string): Promise<Record<string, unknown> | undefined> {
    return this.configured.get(clientId) ?? (await this.storedMetadata(clientId));
  }

  /** A client registered through admin.v1, its secret as a hash in `client_secret`. */
  async storedMetadata(clientId: string): Promise<AdapterPayload | undefined> {
    if (!CLIENT_ID.test(clientId)) return undefined;
    const remembered = this.stored.get(clientId);
    if (remembered) return remembered.metadata;
    const lookUp = async (context: Parameters<OidcClient['getClient']>[1]) => {
      const answer = await this.oidc.getClient({ clientId }, context);
      return answer.found
        ? { ...(JSON.parse(answer.metadataJson) as Record<string, unknown>), ...(answer.secretHash ? { client_secret: answer.secretHash } : {}) }
        : undefined;
    };
    const current = requestContextOf(currentProviderContext()?.req);
    const metadata = current ? await lookUp(current) : await withOwnRequestContext(this.logger, LOOKUP_BUDGET_MS, lookUp);
    this.stored.set(clientId, { metadata });
    return metadata;
  }
}
