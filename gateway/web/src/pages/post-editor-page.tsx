import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, unwrap } from '../api';
import { Field, Form, ProblemMessage, useAction } from '../components/form';
import { SignInFirst } from '../components/layout';
import { Page } from '../components/page';
import { navigate } from '../router';
import { useSession } from '../session';

/** Writes a new post, or edits one of the user's (`postId`). */
export function PostEditorPage(props: { postId?: string }) {
  const { user } = useSession();
  const [title, setTitle] = useState('');
  const [content, setContent] = useState('');
  const [loadError, setLoadError] = useState<ApiError | undefined>();
  const action = useAction();

  useEffect(() => {
    if (!props.postId) return;
    unwrap(api.GET('/v0/posts/{id}', { params: { path: { id: props.postId } } })).then(
      (post) => {
        setTitle(post.title);
        setContent(post.content);
      },
      (error: unknown) => {
        if (error instanceof ApiError) setLoadError(error);
      },
    );
  }, [props.postId]);

  const heading = props.postId ? 'Edit post' : 'Write a post';
  if (user === null) {
    return (
      <Page title={heading}>
        <SignInFirst />
      </Page>
    );
  }
  const save = () =>
    action.run(async () => {
      const post = props.postId
        ? await unwrap(api.PATCH('/v0/posts/{id}', { params: { path: { id: props.postId } }, body: { title, content } }))
        : await unwrap(api.POST('/v0/posts', { body: { title, content } }));
      navigate(`/posts/${post.id}`);
    });
  return (
    <Page title={heading}>
      <ProblemMessage error={loadError ?? action.error} />
      <Form submit={props.postId ? 'Save' : 'Publish'} busy={action.busy} onSubmit={() => void save()}>
        <Field label="Title" name="title" value={title} onValue={setTitle} required error={action.error} />
        <Field label="Content" name="content" value={content} onValue={setContent} multiline required error={action.error} />
      </Form>
    </Page>
  );
}
