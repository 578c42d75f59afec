import { useEffect, useRef, useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import { Field, Form, Notice, ProblemMessage, useAction } from '../components/form';
import { Page } from '../components/page';
import { forgetQuery, Link } from '../router';
import { useSession } from '../session';

/**
 * The token of a mailed link, read once and removed from the address bar:
 * the page keeps it in memory only (docs/api.md, "Links and tokens").
 */
function useMailedToken(fromLink: string): string {
  const token = useRef(fromLink);
  useEffect(() => {
    if (fromLink) forgetQuery();
  }, [fromLink]);
  return token.current;
}

/** Posts the token once, as soon as the page opens; mail scanners that fetch the link run no script. */
function useOneShot(run: () => Promise<unknown>) {
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    void run();
  }, [run]);
}

export function VerifyEmailPage(props: { token: string }) {
  const token = useMailedToken(props.token);
  const { user, refresh } = useSession();
  const [done, setDone] = useState(false);
  const action = useAction();
  useOneShot(() =>
    action.run(async () => {
      await unwrap(api.POST('/v0/auth/verify-email', { body: { token } }));
      setDone(true);
      if (user) await refresh();
    }),
  );
  return (
    <Page title="Verify your email">
      {done ? (
        <Notice>Your email address is verified. {user ? <Link href="/account">Go to your account</Link> : <Link href="/sign-in">Sign in</Link>}.</Notice>
      ) : action.busy ? (
        <p>Checking your link…</p>
      ) : null}
      <ProblemMessage error={action.error} />
      {action.error ? (
        <p>
          The link may have expired or been used. Sign in and ask for a new one from your <Link href="/account">account</Link>.
        </p>
      ) : null}
    </Page>
  );
}

export function ConfirmEmailChangePage(props: { token: string }) {
  const token = useMailedToken(props.token);
  const { user, refresh } = useSession();
  const [email, setEmail] = useState<string | undefined>();
  const action = useAction();
  useOneShot(() =>
    action.run(async () => {
      const changed = await unwrap(api.POST('/v0/auth/confirm-email-change', { body: { token } }));
      setEmail(changed.email);
      if (user) await refresh();
    }),
  );
  return (
    <Page title="Confirm your new email">
      {email ? <Notice>Your account's email address is now {email}.</Notice> : action.busy ? <p>Checking your link…</p> : null}
      <ProblemMessage error={action.error} />
    </Page>
  );
}

/** The link mailed to the current address with an email-change request: it withdraws the change. */
export function CancelEmailChangePage(props: { token: string }) {
  const token = useMailedToken(props.token);
  const [done, setDone] = useState(false);
  const action = useAction();
  useOneShot(() =>
    action.run(async () => {
      await unwrap(api.POST('/v0/auth/cancel-email-change', { body: { token } }));
      setDone(true);
    }),
  );
  return (
    <Page title="Cancel the email change">
      {done ? (
        <>
          <Notice>The email change was cancelled: your account keeps this address.</Notice>
          <p>
            If you did not ask for it, someone else may be signed in to your account: <Link href="/forgot-password">reset your password</Link>, which
            signs every session out.
          </p>
        </>
      ) : action.busy ? (
        <p>Checking your link…</p>
      ) : null}
      <ProblemMessage error={action.error} />
      {action.error ? <p>The link may have expired, been used, or the change was already confirmed or cancelled.</p> : null}
    </Page>
  );
}

export function ResetPasswordPage(props: { token: string }) {
  const token = useMailedToken(props.token);
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const action = useAction();
  if (done) {
    return (
      <Page title="Password changed">
        <Notice>
          Your password is changed and every session was signed out. <Link href="/sign-in">Sign in</Link> with the new one.
        </Notice>
        <p>
          A reset link proves only that you read the mail, so anything someone else may have added while they had your account went too: passkeys and
          sign-in providers added in the hours before the reset were removed, and pending email changes were cancelled. The notice we just mailed you
          names what was removed and what your account keeps; add back what was yours from your <Link href="/account">account</Link>.
        </p>
      </Page>
    );
  }
  return (
    <Page title="Choose a new password">
      <ProblemMessage error={action.error} />
      <Form
        submit="Change password"
        busy={action.busy}
        onSubmit={() =>
          void action.run(async () => {
            await unwrap(api.POST('/v0/auth/reset-password', { body: { token, new_password: password } }));
            setDone(true);
          })
        }
      >
        <Field label="New password" name="new_password" type="password" autoComplete="new-password" value={password} onValue={setPassword} hint="8 to 128 characters." required error={action.error} />
      </Form>
    </Page>
  );
}
