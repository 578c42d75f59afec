import type { User } from '@latchkey/client';
import { useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import { Field, Form, ProblemMessage, useAction } from '../components/form';
import { navigate } from '../router';
import { useSession } from '../session';

/**
 * docs/api.md, "Deleting the account": the proof asked for depends on what
 * the account has; one without a password confirms it is the owner in the
 * re-authentication dialog instead.
 */
export function DeleteAccountSection(props: { user: User }) {
  const { setUser, withRecentProof } = useSession();
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const action = useAction();
  const { has_password: hasPassword, totp_enabled: totpEnabled } = props.user;
  return (
    <section aria-labelledby="delete-title">
      <h2 id="delete-title">Delete account</h2>
      <p>This deletes your account, your posts and everything else it holds, at once. It cannot be undone.</p>
      <ProblemMessage error={action.error} />
      <Form
        submit="Delete my account"
        busy={action.busy}
        label="Delete account"
        onSubmit={() =>
          void action.run(async () => {
            const body = { ...(hasPassword ? { password } : {}), ...(totpEnabled ? { code: code.trim() } : {}) };
            await withRecentProof(() => unwrap(api.DELETE('/v0/users/me', { body })));
            setUser(null);
            navigate('/');
          })
        }
      >
        {hasPassword ? <Field label="Password" name="password" type="password" autoComplete="current-password" value={password} onValue={setPassword} required error={action.error} /> : null}
        {totpEnabled ? <Field label="Authenticator or backup code" name="code" autoComplete="one-time-code" value={code} onValue={setCode} required error={action.error} /> : null}
      </Form>
    </section>
  );
}
