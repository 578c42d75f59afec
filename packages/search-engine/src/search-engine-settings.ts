import { z } from 'zod';
import { env } from '@latchkey/config';

/**
 * Where post search lives, for the two units that touch it: posts (queries)
 * and the jobs worker (the index). Both must name the same engine.
 * `postgres`, the default, keeps the index in schema `search` of the
 * database and needs nothing more; `opensearch` keeps it in an OpenSearch
 * index, for installations whose corpus outgrows what PostgreSQL can rank
 * (docs/performance.md, "Search").
 */
export const searchEngineVariables = {
  SEARCH_ENGINE: z.enum(['postgres', 'opensearch']).default('postgres'),
  /** The cluster, e.g. `https://search.internal:9200`; required with SEARCH_ENGINE=opensearch. */
  OPENSEARCH_URL: env.url(['http', 'https']).optional(),
  /** Basic authentication, both or neither (neither for a cluster without the security plugin). */
  OPENSEARCH_USERNAME: z.string().min(1).optional(),
  OPENSEARCH_PASSWORD: z.string().min(1).optional(),
  /** The index of post documents; one per installation. */
  OPENSEARCH_INDEX: z
    .string()
    .regex(/^[a-z0-9][a-z0-9._-]*$/, 'must be lower-case letters, digits, ., _ or -')
    .default('latchkey-posts'),
  /** A CA bundle (PEM file) for a cluster whose certificate a private CA signed. */
  OPENSEARCH_CA_FILE: z.string().min(1).optional(),
};

export type SearchEngineSettings = Readonly<z.output<ReturnType<typeof z.object<typeof searchEngineVariables>>>>;

/** For a config schema's `.superRefine(checkSearchEngineSettings)`. */
export function checkSearchEngineSettings(config: SearchEngineSettings, context: z.RefinementCtx): void {
  if (config.SEARCH_ENGINE === 'opensearch' && config.OPENSEARCH_URL === undefined) {
    context.addIssue({ code: 'custom', path: ['OPENSEARCH_URL'], message: 'is required with SEARCH_ENGINE=opensearch' });
  }
  if ((config.OPENSEARCH_USERNAME === undefined) !== (config.OPENSEARCH_PASSWORD === undefined)) {
    context.addIssue({ code: 'custom', path: ['OPENSEARCH_PASSWORD'], message: 'OPENSEARCH_USERNAME and OPENSEARCH_PASSWORD must be set together' });
  }
}
