import { useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import { Field, Form, ProblemMessage, useAction } from '../components/form';
import { Page } from '../components/page';
import { Link, navigate } from '../router';
import { useSession } from '../session';
import { pendingSignup } from '../sign-in-steps';
import { safeNext } from './sign-in-page';

/** docs/api.md, "Sign-in with a provider (OAuth)": a new provider user chooses a handle. */
export function CompleteSignupPage() {
  const { setUser } = useSession();
  const [signup] = useState(pendingSignup.read());
  const [handle, setHandle] = useState('');
  const action = useAction();
  if (!signup) {
    return (
      <Page title="Choose a handle">
        <p>
          There is no sign-up waiting in this tab. <Link href="/sign-in">Sign in</Link> to start one.
        </p>
      </Page>
    );
  }
  return (
    <Page title="Choose a handle">
      <p>
        Welcome{signup.name ? `, ${signup.name}` : ''}! Your account will use <strong>{signup.email}</strong>. Choose the handle others see.
      </p>
      <ProblemMessage error={action.error} />
      <Form
        submit="Create account"
        busy={action.busy}
        onSubmit={() =>
          void action.run(async () => {
            const user = await unwrap(api.POST('/v0/auth/complete-signup', { body: { pending_token: signup.pending_token, handle } }));
            pendingSignup.clear();
            setUser(user);
            navigate(safeNext(signup.next));
          })
        }
      >
        <Field label="Handle" name="handle" autoComplete="username" value={handle} onValue={setHandle} hint="3 to 32 letters, digits or _." required error={action.error} />
      </Form>
    </Page>
  );
}
