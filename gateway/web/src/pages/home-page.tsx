import { useCallback } from 'preact/hooks';
import { api, unwrap } from '../api';
import { Page } from '../components/page';
import { PostList } from '../components/post-list';
import { Link } from '../router';
import { useSession } from '../session';
import { SearchForm } from './search-page';

const PAGE_SIZE = 20;

export function HomePage() {
  const { user } = useSession();
  const load = useCallback(
    (cursor: string | undefined) => unwrap(api.GET('/v0/posts', { params: { query: { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } } })),
    [],
  );
  return (
    <Page title="Newest posts">
      <SearchForm query="" />
      {user ? (
        <p>
          <Link href="/posts/new" class="button">
            Write a post
          </Link>
        </p>
      ) : null}
      <PostList load={load} empty="No posts yet." />
    </Page>
  );
}
