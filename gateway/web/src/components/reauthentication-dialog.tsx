import type { paths, User } from '@latchkey/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import { startProviderFlow, useConfiguredProviders } from '../oauth';
import { passkeyAssertion, passkeysSupported } from '../passkeys';
import { Field, Form, ProblemMessage, useAction } from './form';

type ReauthenticationProof = NonNullable<paths['/v0/auth/reauthenticate']['post']['requestBody']>['content']['application/json'];

/**
 * docs/api.md, "Re-authentication": a privileged change asked for a recent
 * proof. The user gives one of the proofs the account has: its password, a
 * TOTP or backup code, a passkey, or a linked provider (which leaves the
 * page, and brings the user back to try again).
 */
export function ReauthenticationDialog(props: { user: User; onDone: (proved: boolean) => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const action = useAction();
  const providers = useConfiguredProviders();

  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => element?.close();
  }, []);

  const prove = (body: ReauthenticationProof) =>
    action.run(async () => {
      await unwrap(api.POST('/v0/auth/reauthenticate', { body }));
      props.onDone(true);
    });

  return (
    <dialog ref={dialog} class="dialog" aria-labelledby="reauth-title" onCancel={() => props.onDone(false)}>
      <h2 id="reauth-title">Confirm it is you</h2>
      <p>This change needs a recent proof of who you are.</p>
      <ProblemMessage error={action.error} />
      {props.user.has_password ? (
        <Form submit="Confirm with password" busy={action.busy} onSubmit={() => void prove({ password })} label="Confirm with your password">
          <Field label="Password" name="password" type="password" autoComplete="current-password" value={password} onValue={setPassword} required error={action.error} />
        </Form>
      ) : null}
      {props.user.totp_enabled ? (
        <Form
          submit="Confirm with code"
          busy={action.busy}
          label="Confirm with an authenticator code"
          onSubmit={() => void prove(/^\d{6}$/.test(code.trim()) ? { code: code.trim() } : { backup_code: code.trim() })}
        >
          <Field label="Authenticator or backup code" name="code" autoComplete="one-time-code" value={code} onValue={setCode} required error={action.error} />
        </Form>
      ) : null}
      {props.user.passkeys_count > 0 && passkeysSupported() ? (
        <button type="button" disabled={action.busy} onClick={() => void action.run(async () => prove({ passkey: (await passkeyAssertion()) as never }))}>
          Confirm with a passkey
        </button>
      ) : null}
      {!props.user.has_password ? (
        <div class="button-row">
          {providers.map((provider) => (
            <button
              type="button"
              key={provider.id}
              disabled={action.busy}
              onClick={() => void action.run(() => startProviderFlow(provider.id, 'reauthenticate', window.location.pathname))}
            >
              Confirm with {provider.name}
            </button>
          ))}
        </div>
      ) : null}
      <button type="button" class="secondary" onClick={() => props.onDone(false)}>
        Cancel
      </button>
    </dialog>
  );
}
