import {
  isOpenSearchStatus,
  openSearchUnavailable,
  postIndexMapping,
  TOMBSTONE_VERSION,
  type OpenSearchClient,
  type PostDocument,
} from '@latchkey/search-engine';
import type { JobOutcome } from './job-consumer';
import type { PostDocumentVersion, PostSearchIndex } from './post-search-index';
import { MAX_INDEXED_CONTENT_CHARS, staleIndexOutcome, TOMBSTONE_RETENTION_HOURS } from './search-index';

/**
 * SEARCH_ENGINE=opensearch: one document per post in OPENSEARCH_INDEX, its
 * OpenSearch version the post version (external versioning), so the
 * cluster itself refuses an older version over a newer one, whichever job
 * comes last. A tombstone takes the largest version there is, so no index
 * job can replace it before the purge. Any failure but a conflict is
 * `service:unavailable`: the job fails and is retried.
 */
export class OpenSearchPostIndex implements PostSearchIndex {
  constructor(
    private readonly client: OpenSearchClient,
    private readonly index: string,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Creates the index with its mapping unless it exists; the worker calls it at start. */
  async ensureIndex(): Promise<void> {
    try {
      const exists = await this.client.indices.exists({ index: this.index });
      if (exists.body) return;
      await this.client.indices.create({ index: this.index, body: postIndexMapping });
    } catch (error) {
      // Another replica created it in the meantime.
      if (isOpenSearchStatus(error, 400) && JSON.stringify((error as { body?: unknown }).body ?? '').includes('resource_already_exists')) return;
      throw openSearchUnavailable(error, 'create the post index');
    }
  }

  async staleOutcome(postId: string, version: number): Promise<JobOutcome | undefined> {
    const state = await this.state(postId);
    return staleIndexOutcome(state, version);
  }

  async upsert(document: PostDocumentVersion): Promise<JobOutcome> {
    const written = await this.write(
      document.postId,
      {
        post_id: document.postId,
        author_id: document.authorId,
        title: document.title,
        content: document.content.slice(0, MAX_INDEXED_CONTENT_CHARS),
        version: document.version,
        deleted: false,
        updated_at: this.clock().toISOString(),
      },
      document.version,
      'external',
    );
    if (written) return 'completed';
    return (await this.staleOutcome(document.postId, document.version)) ?? 'superseded';
  }

  async tombstone(postId: string, version: number): Promise<void> {
    const state = await this.state(postId);
    // A second delete keeps the tombstone and its age.
    if (state?.deleted) return;
    await this.write(
      postId,
      { post_id: postId, author_id: null, title: '', content: '', version, deleted: true, updated_at: this.clock().toISOString() },
      TOMBSTONE_VERSION,
      'external_gte',
    );
  }

  async purgeTombstones(): Promise<number> {
    const before = new Date(this.clock().getTime() - TOMBSTONE_RETENTION_HOURS * 3_600_000).toISOString();
    try {
      const response = await this.client.deleteByQuery({
        index: this.index,
        body: { query: { bool: { filter: [{ term: { deleted: true } }, { range: { updated_at: { lt: before } } }] } } },
      });
      const body = response.body;
      return 'deleted' in body ? Number(body.deleted ?? 0) : 0;
    } catch (error) {
      if (isOpenSearchStatus(error, 404)) return 0;
      throw openSearchUnavailable(error, 'purge tombstones');
    }
  }

  /** What the index holds for the post; the post version is the document's. */
  private async state(postId: string): Promise<{ version: number; deleted: boolean } | undefined> {
    try {
      const response = await this.client.get({ index: this.index, id: postId });
      const source = response.body._source as PostDocument | undefined;
      if (!response.body.found || !source) return undefined;
      return { version: source.version, deleted: source.deleted };
    } catch (error) {
      if (isOpenSearchStatus(error, 404)) return undefined;
      throw openSearchUnavailable(error, 'read a post document');
    }
  }

  /** Writes under an external version; false when the cluster holds a version that wins. */
  private async write(id: string, document: PostDocument, version: number, versionType: 'external' | 'external_gte'): Promise<boolean> {
    try {
      await this.client.index({ index: this.index, id, body: document, version, version_type: versionType });
      return true;
    } catch (error) {
      if (isOpenSearchStatus(error, 409)) return false;
      throw openSearchUnavailable(error, 'write a post document');
    }
  }
}
