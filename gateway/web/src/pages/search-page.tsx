import { useCallback, useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import { Page } from '../components/page';
import { PostList } from '../components/post-list';
import { navigate } from '../router';

/** The search box; a search is a page of its own, so that it can be linked and gone back to. */
export function SearchForm(props: { query: string }) {
  const [query, setQuery] = useState(props.query);
  return (
    <form
      role="search"
      class="search-form"
      onSubmit={(event) => {
        event.preventDefault();
        if (query.trim()) navigate(`/search?q=${encodeURIComponent(query.trim())}`);
      }}
    >
      <label for="search-query">Search posts</label>
      <input id="search-query" name="q" type="search" value={query} maxLength={200} onInput={(event) => setQuery(event.currentTarget.value)} />
      <button type="submit">Search</button>
    </form>
  );
}

export function SearchPage(props: { query: string }) {
  const load = useCallback(
    (cursor: string | undefined) => unwrap(api.GET('/v0/search/posts', { params: { query: { q: props.query, ...(cursor ? { cursor } : {}) } } })),
    [props.query],
  );
  return (
    <Page title={props.query ? `Search: ${props.query}` : 'Search'}>
      <SearchForm query={props.query} key={props.query} />
      {props.query ? <PostList load={load} empty="No post matches." /> : <p>Words of a title or content; "quoted phrases" and -excluded words work too.</p>}
    </Page>
  );
}
