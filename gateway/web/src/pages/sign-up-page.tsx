import { useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import { Field, Form, Notice, ProblemMessage, useAction } from '../components/form';
import { Page } from '../components/page';
import { Link } from '../router';

/** docs/api.md, "Accounts": an account is created unverified; the mailed link verifies it. */
export function SignUpPage() {
  const [handle, setHandle] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [created, setCreated] = useState<string | undefined>();
  const action = useAction();
  if (created) {
    return (
      <Page title="Check your mail">
        <Notice>
          We sent a link to <strong>{created}</strong>. Open it to verify your address, then <Link href="/sign-in">sign in</Link>.
        </Notice>
      </Page>
    );
  }
  return (
    <Page title="Create an account">
      <ProblemMessage error={action.error} />
      <Form
        submit="Create account"
        busy={action.busy}
        onSubmit={() =>
          void action.run(async () => {
            const user = await unwrap(api.POST('/v0/users', { body: { handle, email, password } }));
            setCreated(user.email);
          })
        }
      >
        <Field label="Handle" name="handle" autoComplete="username" value={handle} onValue={setHandle} hint="3 to 32 letters, digits or _." required error={action.error} />
        <Field label="Email" name="email" type="email" autoComplete="email" value={email} onValue={setEmail} required error={action.error} />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          value={password}
          onValue={setPassword}
          hint="8 to 128 characters."
          required
          error={action.error}
        />
      </Form>
      <p>
        Have an account? <Link href="/sign-in">Sign in</Link>.
      </p>
    </Page>
  );
}
