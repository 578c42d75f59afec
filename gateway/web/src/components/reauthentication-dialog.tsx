import type { paths, User } from '@latchkey/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import { startProviderFlow, useConfiguredProviders } from '../oauth';
import { passkeyAssertion, passkeysSupported } from '../passkeys';
import { Field, Form, ProblemMessage, useAction } from './form';

type ReauthenticationProof = NonNullable<paths['/v0/auth/reauthenticate']['post']['requestBody']>['content']['application/json'];

/** A typed code: six digits are an authenticator code, anything else a backup code. */
export function secondFactorOf(typed: string): { code: string } | { backup_code: string } {
  const code = typed.trim();
  return /^\d{6}$/.test(code) ? { code } : { backup_code: code };
}

/**
 * docs/api.md, "Re-authentication": a privileged change asked for a recent
 * proof as strong as a sign-in. The user gives what signs the account in:
 * its password (with a TOTP or backup code when TOTP is on), a passkey, or
 * a linked provider (which leaves the page, asks for a code on its return
 * when TOTP is on, and brings the user back to try again).
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
      <p>
        {props.user.totp_enabled
          ? 'This change needs a recent proof of who you are, as strong as signing in: your password and a code, or a passkey.'
          : props.user.passkeys_count > 0
            ? 'This change needs a recent proof of who you are: a passkey for a change to how you sign in (your account has one, so a password alone is not enough), your password for anything else.'
            : 'This change needs a recent proof of who you are, as strong as signing in.'}
      </p>
      <ProblemMessage error={action.error} />
      {props.user.has_password ? (
        <Form
          submit={props.user.totp_enabled ? 'Confirm with password and code' : 'Confirm with password'}
          busy={action.busy}
          onSubmit={() => void prove(props.user.totp_enabled ? { password, ...secondFactorOf(code) } : { password })}
          label="Confirm with your password"
        >
          <Field label="Password" name="password" type="password" autoComplete="current-password" value={password} onValue={setPassword} required error={action.error} />
          {props.user.totp_enabled ? (
            <Field label="Authenticator or backup code" name="code" autoComplete="one-time-code" value={code} onValue={setCode} required error={action.error} />
          ) : null}
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
