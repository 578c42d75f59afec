import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for an OpenSearch cluster, speaking the part of its HTTP API
 * that Latchkey's search engine uses (packages/search-engine,
 * services/posts/src/opensearch-post-search.ts, services/jobs/src/opensearch-post-index.ts):
 * the client's version check, index creation, documents with external
 * versions, `_search` with `bool` / `multi_match` / `term` / `range`,
 * sorting by score then a keyword, `search_after`, and `_delete_by_query`.
 * No OpenSearch server can be installed here, so tests run against this.
 *
 * Analysis is simpler than OpenSearch's `english` analyzer: lower case,
 * runs of letters and digits, a few stop words, no stemming. Scores count
 * each matched word in each field (times the field's boost) weighted by
 * how rare the word is, so a document dense in the query's words ranks
 * above one that mentions them once, as BM25 ranks them. Anything it does
 * not understand is answered 400, so a query the engine starts sending
 * fails the tests instead of matching wrongly.
 */

type Source = Record<string, unknown>;

interface StoredDocument {
  readonly id: string;
  readonly version: number;
  readonly source: Source;
}

interface IndexState {
  readonly mappings: unknown;
  readonly documents: Map<string, StoredDocument>;
}

export interface FakeOpenSearch {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** The documents of an index, by id (undefined: no such index). */
  documents(index: string): ReadonlyMap<string, { version: number; source: Source }> | undefined;
  /** Answers every request after this call with `status` until `recover()`, as a cluster in trouble would. */
  fail(status: number): void;
  recover(): void;
  /** Requests received, as `METHOD path` (query string left out). */
  readonly requests: readonly string[];
  close(): Promise<void>;
}

const STOP_WORDS = new Set(['a', 'an', 'and', 'are', 'as', 'at', 'be', 'by', 'for', 'in', 'is', 'it', 'of', 'on', 'or', 'the', 'to', 'with']);

export function analyze(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((token) => !STOP_WORDS.has(token));
}

class BadRequest extends Error {}

/** A scalar of a request or a document as text; anything else is no text. */
function text(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
}

function object(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new BadRequest(`${what}: expected an object`);
  return value as Record<string, unknown>;
}

function list(value: unknown): unknown[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** `title^2` → field and boost. */
function fieldOf(spec: unknown): { field: string; boost: number } {
  if (typeof spec !== 'string') throw new BadRequest('multi_match.fields: expected strings');
  const [field, boost] = spec.split('^');
  return { field: field ?? '', boost: boost === undefined ? 1 : Number(boost) };
}

function containsPhrase(tokens: readonly string[], phrase: readonly string[]): number {
  let count = 0;
  for (let start = 0; start + phrase.length <= tokens.length; start += 1) {
    if (phrase.every((token, offset) => tokens[start + offset] === token)) count += 1;
  }
  return count;
}

/** A compiled query: whether a document matches, and its score when it does. */
type Evaluate = (document: StoredDocument) => number | undefined;

class QueryCompiler {
  constructor(private readonly index: IndexState) {}

  private rarity(token: string, field: string): number {
    let containing = 0;
    for (const document of this.index.documents.values()) {
      if (analyze(text(document.source[field])).includes(token)) containing += 1;
    }
    return Math.log(1 + this.index.documents.size / Math.max(1, containing));
  }

  compile(query: unknown): Evaluate {
    const clause = object(query, 'query');
    const [kind, ...others] = Object.keys(clause);
    if (!kind || others.length > 0) throw new BadRequest('a query clause has exactly one kind');
    const body = clause[kind];
    switch (kind) {
      case 'match_all':
        return () => 1;
      case 'term':
        return this.term(object(body, 'term'));
      case 'range':
        return this.range(object(body, 'range'));
      case 'multi_match':
        return this.multiMatch(object(body, 'multi_match'));
      case 'bool':
        return this.bool(object(body, 'bool'));
      default:
        throw new BadRequest(`query kind ${kind} is not supported by the fake`);
    }
  }

  private term(body: Record<string, unknown>): Evaluate {
    const [field] = Object.keys(body);
    if (!field) throw new BadRequest('term: no field');
    const wanted = body[field];
    return (document) => (document.source[field] === wanted ? 0 : undefined);
  }

  private range(body: Record<string, unknown>): Evaluate {
    const [field] = Object.keys(body);
    if (!field) throw new BadRequest('range: no field');
    const bounds = object(body[field], 'range');
    return (document) => {
      const value = text(document.source[field]);
      if (bounds.lt !== undefined && !(value < text(bounds.lt))) return undefined;
      if (bounds.gt !== undefined && !(value > text(bounds.gt))) return undefined;
      return 0;
    };
  }

  private multiMatch(body: Record<string, unknown>): Evaluate {
    const tokens = analyze(text(body.query));
    const fields = list(body.fields).map(fieldOf);
    const type = body.type ?? 'best_fields';
    if (type !== 'phrase' && type !== 'cross_fields' && type !== 'best_fields') {
      throw new BadRequest(`multi_match.type ${text(type)} is not supported by the fake`);
    }
    const phrase = type === 'phrase';
    const all = phrase || body.operator === 'and';
    // As OpenSearch: a query left with no words after analysis matches nothing, or everything with zero_terms_query all.
    if (tokens.length === 0) return body.zero_terms_query === 'all' ? () => 0 : () => undefined;
    const weights = new Map(fields.flatMap(({ field }) => tokens.map((token) => [`${field} ${token}`, this.rarity(token, field)] as const)));
    if (type === 'cross_fields') {
      // The fields as one: each word must be in one of them (with operator and), scored where it counts most.
      return (document) => {
        const texts = fields.map(({ field, boost }) => ({ field, boost, words: analyze(text(document.source[field])) }));
        let score = 0;
        let matched = 0;
        for (const token of tokens) {
          let best = 0;
          for (const { field, boost, words } of texts) {
            const count = words.filter((word) => word === token).length;
            best = Math.max(best, count * boost * (weights.get(`${field} ${token}`) ?? 0));
          }
          if (best > 0) matched += 1;
          score += best;
        }
        if (all ? matched < tokens.length : matched === 0) return undefined;
        return score;
      };
    }
    return (document) => {
      let best: number | undefined;
      for (const { field, boost } of fields) {
        const words = analyze(text(document.source[field]));
        let score: number;
        if (phrase) {
          const count = containsPhrase(words, tokens);
          if (count === 0) continue;
          score = count * tokens.reduce((sum, token) => sum + (weights.get(`${field} ${token}`) ?? 0), 0);
        } else {
          const counts = tokens.map((token) => words.filter((word) => word === token).length);
          if (all ? counts.some((count) => count === 0) : counts.every((count) => count === 0)) continue;
          score = counts.reduce((sum, count, i) => sum + count * (weights.get(`${field} ${tokens[i]}`) ?? 0), 0);
        }
        best = Math.max(best ?? 0, score * boost);
      }
      return best;
    };
  }

  private bool(body: Record<string, unknown>): Evaluate {
    for (const key of Object.keys(body)) {
      if (!['must', 'should', 'must_not', 'filter', 'minimum_should_match'].includes(key)) {
        throw new BadRequest(`bool.${key} is not supported by the fake`);
      }
    }
    const must = list(body.must).map((q) => this.compile(q));
    const filter = list(body.filter).map((q) => this.compile(q));
    const should = list(body.should).map((q) => this.compile(q));
    const mustNot = list(body.must_not).map((q) => this.compile(q));
    const minimumShould = body.minimum_should_match === undefined ? (must.length + filter.length === 0 ? 1 : 0) : Number(body.minimum_should_match);
    return (document) => {
      let score = 0;
      for (const evaluate of [...must, ...filter]) {
        const part = evaluate(document);
        if (part === undefined) return undefined;
        if (must.includes(evaluate)) score += part;
      }
      if (mustNot.some((evaluate) => evaluate(document) !== undefined)) return undefined;
      let matchedShould = 0;
      for (const evaluate of should) {
        const part = evaluate(document);
        if (part !== undefined) {
          matchedShould += 1;
          score += part;
        }
      }
      if (should.length > 0 && matchedShould < minimumShould) return undefined;
      return score;
    };
  }
}

interface Hit {
  readonly document: StoredDocument;
  readonly score: number;
}

function sortKey(hit: Hit, field: string): number | string {
  return field === '_score' ? hit.score : text(hit.document.source[field]);
}

function compareBy(sort: readonly { field: string; descending: boolean }[]) {
  return (a: readonly (number | string)[], b: readonly (number | string)[]): number => {
    for (const [index, { descending }] of sort.entries()) {
      const left = a[index] ?? '';
      const right = b[index] ?? '';
      if (left === right) continue;
      return (left < right ? -1 : 1) * (descending ? -1 : 1);
    }
    return 0;
  };
}

function parseSort(value: unknown): { field: string; descending: boolean }[] {
  return list(value).map((entry) => {
    const spec = object(entry, 'sort');
    const [field] = Object.keys(spec);
    if (!field) throw new BadRequest('sort: no field');
    const order = spec[field];
    const direction = typeof order === 'string' ? order : object(order, 'sort').order;
    return { field, descending: direction === 'desc' };
  });
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text.length === 0 ? undefined : (JSON.parse(text) as unknown);
}

function send(response: ServerResponse, status: number, body?: unknown): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

function error(type: string, reason: string): { error: { type: string; reason: string }; status?: number } {
  return { error: { type, reason } };
}

export async function startFakeOpenSearch(): Promise<FakeOpenSearch> {
  const indices = new Map<string, IndexState>();
  const requests: string[] = [];
  let failing: number | undefined;

  const search = (index: IndexState, body: Record<string, unknown>) => {
    const evaluate = new QueryCompiler(index).compile(body.query ?? { match_all: {} });
    const sort = parseSort(body.sort ?? [{ _score: 'desc' }]);
    const compare = compareBy(sort);
    const after = body.search_after === undefined ? undefined : list(body.search_after).map((value) => value as number | string);
    const size = body.size === undefined ? 10 : Number(body.size);
    const hits: { hit: Hit; key: (number | string)[] }[] = [];
    for (const document of index.documents.values()) {
      const score = evaluate(document);
      if (score === undefined) continue;
      const hit = { document, score };
      const key = sort.map(({ field }) => sortKey(hit, field));
      if (after && compare(key, after) <= 0) continue;
      hits.push({ hit, key });
    }
    hits.sort((a, b) => compare(a.key, b.key));
    return {
      took: 1,
      timed_out: false,
      hits: {
        hits: hits.slice(0, size).map(({ hit, key }) => ({
          _index: 'index',
          _id: hit.document.id,
          _score: hit.score,
          ...(body._source === false ? {} : { _source: hit.document.source }),
          sort: key,
        })),
      },
    };
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const method = request.method ?? 'GET';
    requests.push(`${method} ${url.pathname}`);
    if (failing !== undefined) return send(response, failing, error('cluster_block_exception', 'the fake was told to fail'));
    const parts = url.pathname.split('/').filter((part) => part.length > 0).map(decodeURIComponent);
    const body = await readBody(request);

    if (parts.length === 0 && method === 'GET') {
      return send(response, 200, { name: 'fake', cluster_name: 'fake', version: { distribution: 'opensearch', number: '2.19.0' } });
    }
    const [name, action, id] = parts;
    if (!name) return send(response, 400, error('illegal_argument_exception', 'no index'));
    const index = indices.get(name);
    const missingIndex = () => send(response, 404, error('index_not_found_exception', `no such index [${name}]`));

    if (parts.length === 1) {
      if (method === 'HEAD') return send(response, index ? 200 : 404);
      if (method === 'PUT') {
        if (index) return send(response, 400, error('resource_already_exists_exception', `index [${name}] already exists`));
        indices.set(name, { mappings: body, documents: new Map() });
        return send(response, 200, { acknowledged: true, index: name });
      }
    }
    if (action === '_refresh') return index ? send(response, 200, { _shards: { failed: 0 } }) : missingIndex();
    if (action === '_search' && (method === 'POST' || method === 'GET')) {
      if (!index) return missingIndex();
      return send(response, 200, search(index, object(body ?? {}, 'search body')));
    }
    if (action === '_delete_by_query' && method === 'POST') {
      if (!index) return missingIndex();
      const evaluate = new QueryCompiler(index).compile(object(body, 'body').query);
      let deleted = 0;
      for (const [key, document] of index.documents) {
        if (evaluate(document) !== undefined) {
          index.documents.delete(key);
          deleted += 1;
        }
      }
      return send(response, 200, { deleted, failures: [] });
    }
    if (action === '_doc' && id) {
      if (method === 'GET') {
        if (!index) return missingIndex();
        const document = index.documents.get(id);
        if (!document) return send(response, 404, { _index: name, _id: id, found: false });
        return send(response, 200, { _index: name, _id: id, _version: document.version, found: true, _source: document.source });
      }
      if (method === 'PUT' || method === 'POST') {
        // OpenSearch creates a missing index on the first write; the engine creates it first, so here it is a mistake.
        if (!index) return missingIndex();
        const versionType = url.searchParams.get('version_type');
        const version = Number(url.searchParams.get('version'));
        if ((versionType !== 'external' && versionType !== 'external_gte') || !Number.isSafeInteger(version)) {
          return send(response, 400, error('action_request_validation_exception', 'the fake takes external versions only'));
        }
        const current = index.documents.get(id);
        if (current && (versionType === 'external' ? current.version >= version : current.version > version)) {
          return send(response, 409, {
            ...error('version_conflict_engine_exception', `[${id}]: version conflict, current version [${current.version}] is higher or equal to the one provided [${version}]`),
            status: 409,
          });
        }
        index.documents.set(id, { id, version, source: object(body, 'document') });
        return send(response, current ? 200 : 201, { _index: name, _id: id, _version: version, result: current ? 'updated' : 'created' });
      }
    }
    return send(response, 400, error('illegal_argument_exception', `${method} ${url.pathname} is not supported by the fake`));
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((failure: unknown) => {
      const status = failure instanceof BadRequest || failure instanceof SyntaxError ? 400 : 500;
      send(response, status, error(status === 400 ? 'parsing_exception' : 'exception', String(failure)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    documents(name) {
      const index = indices.get(name);
      return index && new Map([...index.documents].map(([key, document]) => [key, { version: document.version, source: document.source }]));
    },
    fail(status) {
      failing = status;
    },
    recover() {
      failing = undefined;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
