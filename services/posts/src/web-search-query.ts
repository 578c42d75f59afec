/**
 * The web-search syntax of `q` (docs/api.md, "Posts and search"), as
 * PostgreSQL's websearch_to_tsquery reads it, for engines that do not read
 * it themselves: words are all required, `"a phrase"` must appear as
 * written, `-word` and `-"a phrase"` must not appear, and `or` between two
 * terms lets either do. `or` binds tighter than the implied `and`:
 * `a b or c d` is a, then b or c, then d.
 */

export interface SearchTerm {
  readonly text: string;
  readonly phrase: boolean;
  readonly excluded: boolean;
}

/** Every group must hold: a group of several terms holds when any one of them does. */
export type SearchGroups = readonly (readonly SearchTerm[])[];

const TOKEN = /(-?)"([^"]*)"?|(\S+)/g;

export function parseWebSearch(query: string): SearchGroups {
  const groups: SearchTerm[][] = [];
  let joinNext = false;
  for (const match of query.matchAll(TOKEN)) {
    const [, minus, quoted, bare] = match;
    if (bare !== undefined && bare.toLowerCase() === 'or') {
      // As websearch_to_tsquery: an `or` with no term before it is ignored.
      joinNext = groups.length > 0;
      continue;
    }
    let term: SearchTerm;
    if (quoted !== undefined) term = { text: quoted, phrase: true, excluded: minus === '-' };
    else if (bare !== undefined && bare.startsWith('-') && bare.length > 1) term = { text: bare.slice(1), phrase: false, excluded: true };
    else term = { text: bare ?? '', phrase: false, excluded: false };
    // Like websearch_to_tsquery, which keeps only words: a term of punctuation alone is no term.
    if (!/[\p{L}\p{N}]/u.test(term.text)) continue;
    const last = groups[groups.length - 1];
    if (joinNext && last) last.push(term);
    else groups.push([term]);
    joinNext = false;
  }
  return groups;
}
