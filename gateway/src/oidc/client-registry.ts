import type { AdapterPayload } from 'oidc-provider';
import type { Logger } from '@latchkey/telemetry';
import { startRequestContext } from '@latchkey/grpc-kit';
import { requestContextOf } from './provider-context';
import { currentProviderContext } from './provider-runtime';
import type { OidcClient } from '../service-clients';
import { hashClientSecret, providerMetadataOf, type ClientEntry } from '@latchkey/oidc-clients';

/** How long a client registered through admin.v1 is remembered: a change reaches the token endpoint within it. */
const STORED_CLIENT_TTL_MS = 5_000;
const LOOKUP_BUDGET_MS = 2_000;

/**
 * The provider's clients: those of OIDC_CLIENTS (configuration, for GitOps)
 * and those registered through admin.v1 (kept by identity, remembered for a
 * few seconds). A configured client id wins over a registered one.
 */
export class ClientRegistry {
  private readonly configured: ReadonlyMap<string, Record<string, unknown>>;
  private readonly stored = new Map<string, { readonly at: number; readonly metadata: Record<string, unknown> | undefined }>();

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
    const remembered = this.stored.get(clientId);
    if (remembered && Date.now() - remembered.at < STORED_CLIENT_TTL_MS) return remembered.metadata;
    const current = requestContextOf(currentProviderContext()?.req);
    const started = current ? undefined : startRequestContext({ requestId: `client-${clientId}`, logger: this.logger, deadline: Date.now() + LOOKUP_BUDGET_MS });
    try {
      const answer = await this.oidc.getClient({ clientId }, current ?? started!.context);
      const metadata = answer.found
        ? { ...(JSON.parse(answer.metadataJson) as Record<string, unknown>), ...(answer.secretHash ? { client_secret: answer.secretHash } : {}) }
        : undefined;
      this.stored.set(clientId, { at: Date.now(), metadata });
      return metadata;
    } finally {
      started?.end();
    }
  }
}
