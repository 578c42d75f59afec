import type { PostSummary } from '@latchkey/client';
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api';
import { Link } from '../router';
import { formatDate } from './dates';
import { ProblemMessage } from './form';

export interface PostPage {
  readonly items: PostSummary[];
  readonly next_cursor: string | null;
}

/**
 * A keyset-paged list (docs/api.md, "Posts and search"): the first page,
 * then "More" fetches the page after the last cursor and appends it.
 * `load` changes when the list should start over (a new search).
 */
export function PostList(props: { load: (cursor: string | undefined) => Promise<PostPage>; empty: string }) {
  const [items, setItems] = useState<PostSummary[]>([]);
  const [cursor, setCursor] = useState<string | null | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();

  const fetchPage = async (after: string | undefined, append: boolean) => {
    setBusy(true);
    setError(undefined);
    try {
      const page = await props.load(after);
      setItems((shown) => (append ? [...shown, ...page.items] : page.items));
      setCursor(page.next_cursor);
    } catch (caught) {
      if (caught instanceof ApiError) setError(caught);
      else throw caught;
    } finally {
      setBusy(false);
    }
  };

  // A new `load` (another search) starts the list over.
  useEffect(() => {
    void fetchPage(undefined, false);
  }, [props.load]);

  return (
    <div aria-busy={busy}>
      <ProblemMessage error={error} />
      {items.length === 0 && !busy && !error ? <p>{props.empty}</p> : null}
      <ul class="post-list">
        {items.map((post) => (
          <li key={post.id}>
            <Link href={`/posts/${post.id}`}>{post.title}</Link>
            <span class="meta">
              by {post.author.handle}, {formatDate(post.created_at)}
            </span>
          </li>
        ))}
      </ul>
      {cursor ? (
        <button type="button" class="secondary" disabled={busy} onClick={() => void fetchPage(cursor, true)}>
          More posts
        </button>
      ) : null}
    </div>
  );
}
