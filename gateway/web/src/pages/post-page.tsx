import type { Post } from '@latchkey/client';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, unwrap } from '../api';
import { ProblemMessage, useAction } from '../components/form';
import { Page } from '../components/page';
import { formatDate } from '../components/dates';
import { Link, navigate } from '../router';
import { useSession } from '../session';

export function PostPage(props: { postId: string }) {
  const { user } = useSession();
  const [post, setPost] = useState<Post | undefined>();
  const [loadError, setLoadError] = useState<ApiError | undefined>();
  const action = useAction();

  useEffect(() => {
    unwrap(api.GET('/v0/posts/{id}', { params: { path: { id: props.postId } } })).then(setPost, (error: unknown) => {
      if (error instanceof ApiError) setLoadError(error);
    });
  }, [props.postId]);

  if (loadError) {
    return (
      <Page title="Post not found">
        <ProblemMessage error={loadError} />
        <Link href="/">Newest posts</Link>
      </Page>
    );
  }
  if (!post) return <p aria-busy="true">Loading…</p>;
  const mine = user?.id === post.author.id;
  return (
    <Page title={post.title}>
      <p class="meta">
        by {post.author.handle}, {formatDate(post.created_at)}
        {post.updated_at !== post.created_at ? `, edited ${formatDate(post.updated_at)}` : ''}
      </p>
      <div class="post-content">{post.content}</div>
      {mine ? (
        <div class="button-row">
          <Link href={`/posts/${post.id}/edit`} class="button">
            Edit
          </Link>
          <button
            type="button"
            class="danger"
            disabled={action.busy}
            onClick={() => {
              if (!window.confirm('Delete this post? This cannot be undone.')) return;
              void action.run(async () => {
                await unwrap(api.DELETE('/v0/posts/{id}', { params: { path: { id: post.id } } }));
                navigate('/');
              });
            }}
          >
            Delete
          </button>
        </div>
      ) : null}
      <ProblemMessage error={action.error} />
    </Page>
  );
}
