import type { User } from '@latchkey/client';
import { useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import { Field, Form, Notice, ProblemMessage, useAction } from '../components/form';
import { formatDate } from '../components/dates';
import { Link } from '../router';
import { useSession } from '../session';

export function ProfileSection(props: { user: User }) {
  const { user } = props;
  const resend = useAction();
  const [resent, setResent] = useState(false);
  return (
    <section aria-labelledby="profile-title">
      <h2 id="profile-title">Profile</h2>
      <dl class="facts">
        <dt>Handle</dt>
        <dd>{user.handle}</dd>
        <dt>Email</dt>
        <dd>
          {user.email} {user.email_verified ? '(verified)' : '(not verified)'}
        </dd>
        <dt>Member since</dt>
        <dd>{formatDate(user.created_at)}</dd>
      </dl>
      {!user.email_verified ? (
        <>
          <ProblemMessage error={resend.error} />
          {resent ? <Notice>A new verification link is on its way.</Notice> : null}
          <button
            type="button"
            disabled={resend.busy}
            onClick={() =>
              void resend.run(async () => {
                await unwrap(api.POST('/v0/auth/resend-verification-email', { body: {} }));
                setResent(true);
              })
            }
          >
            Send the verification link again
          </button>
        </>
      ) : null}
      {user.has_password ? <ChangePassword /> : <p>Your account has no password. <Link href="/forgot-password">Set one</Link> through a mailed link.</p>}
      {user.has_password ? <ChangeEmail /> : null}
    </section>
  );
}

function ChangePassword() {
  const { refresh } = useSession();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState(false);
  const action = useAction();
  return (
    <>
      <h3>Change password</h3>
      <ProblemMessage error={action.error} />
      {done ? <Notice>Your password is changed; your other sessions were signed out.</Notice> : null}
      <Form
        submit="Change password"
        busy={action.busy}
        label="Change password"
        onSubmit={() =>
          void action.run(async () => {
            await unwrap(api.POST('/v0/auth/change-password', { body: { current_password: current, new_password: next } }));
            setDone(true);
            setCurrent('');
            setNext('');
            await refresh();
          })
        }
      >
        <Field label="Current password" name="current_password" type="password" autoComplete="current-password" value={current} onValue={setCurrent} required error={action.error} />
        <Field label="New password" name="new_password" type="password" autoComplete="new-password" value={next} onValue={setNext} hint="8 to 128 characters." required error={action.error} />
      </Form>
    </>
  );
}

function ChangeEmail() {
  const { withRecentProof } = useSession();
  const [password, setPassword] = useState('');
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState<string | undefined>();
  const action = useAction();
  return (
    <>
      <h3>Change email</h3>
      <ProblemMessage error={action.error} />
      {sent ? <Notice>Open the link we sent to {sent} to finish the change.</Notice> : null}
      <Form
        submit="Change email"
        busy={action.busy}
        label="Change email"
        onSubmit={() =>
          void action.run(async () => {
            await withRecentProof(() => unwrap(api.POST('/v0/auth/change-email', { body: { current_password: password, new_email: email } })));
            setSent(email);
            setPassword('');
          })
        }
      >
        <Field label="New email" name="new_email" type="email" autoComplete="email" value={email} onValue={setEmail} required error={action.error} />
        <Field label="Current password" name="current_password" type="password" autoComplete="current-password" value={password} onValue={setPassword} required error={action.error} />
      </Form>
    </>
  );
}
