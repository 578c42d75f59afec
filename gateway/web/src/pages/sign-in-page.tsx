import type { User } from '@latchkey/client';
import { useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import { Field, Form, ProblemMessage, useAction } from '../components/form';
import { SignInRefusal } from '../components/sso-required';
import { Page } from '../components/page';
import { startProviderFlow, useConfiguredProviders } from '../oauth';
import { passkeyAssertion, passkeysSupported } from '../passkeys';
import { Link, navigate } from '../router';
import { useSession } from '../session';
import { totpStep } from '../sign-in-steps';
import { discoverRealm, ssoTargetOf, startSsoSignIn, type Realm } from '../sso';

/** A page of this app to go to after signing in: never another site; the account page by default. */
export function safeNext(next: string | undefined): string {
  if (next === undefined) return '/account';
  return next.startsWith('/') && !next.startsWith('//') ? next : '/account';
}

/**
 * docs/api.md, "Authentication": a password, a passkey or a provider; then TOTP when the account has it on.
 * The email is looked up first: an address of an SSO domain is sent to its organisation's IdP (docs/web-app.md).
 */
export function SignInPage(props: { next: string }) {
  const { setUser } = useSession();
  const [tempToken, setTempToken] = useState(totpStep.read());
  const signedIn = (user: User) => {
    totpStep.clear();
    setUser(user);
    navigate(safeNext(props.next));
  };
  const answered = (answer: User | { totp_required: true; temp_token: string }) => {
    if ('totp_required' in answer) {
      totpStep.keep(answer.temp_token);
      setTempToken(answer.temp_token);
    } else signedIn(answer);
  };
  return tempToken ? (
    <TotpStep tempToken={tempToken} onSignedIn={signedIn} onRestart={() => (totpStep.clear(), setTempToken(undefined))} />
  ) : (
    <FirstFactor onAnswer={answered} next={safeNext(props.next)} />
  );
}

function FirstFactor(props: { onAnswer: (answer: User | { totp_required: true; temp_token: string }) => void; next: string }) {
  const providers = useConfiguredProviders();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [realm, setRealm] = useState<Realm | undefined>();
  const action = useAction();
  const typed = email.trim();
  // What was found for the address now in the field; a changed address is looked up again.
  const offered = realm?.email === typed && realm.sso ? realm : undefined;
  const signInWithSso = () => action.run(() => startSsoSignIn({ email: typed }, props.next));
  // Email first: an address of an organisation that enforces SSO goes to its IdP, never a password (docs/web-app.md, "Sign-in").
  const submit = () =>
    action.run(async () => {
      if (realm?.email !== typed) {
        const found = await discoverRealm(typed);
        setRealm(found);
        if (found.enforced) return startSsoSignIn({ email: typed }, props.next);
        // Not enforced: offered first; the same address submitted again signs in with the password.
        if (found.sso) return;
      }
      props.onAnswer(await unwrap(api.POST('/v0/auth/login', { body: { email, password } })));
    });
  return (
    <Page title="Sign in">
      <SignInRefusal error={action.error} next={props.next} />
      {offered ? (
        <div class="notice" role="status">
          <p>Your organisation signs you in through its identity provider.</p>
          <p class="button-row">
            <button type="button" disabled={action.busy} onClick={() => void signInWithSso()}>
              Continue with single sign-on
            </button>
          </p>
          <p>Or sign in with your password below.</p>
        </div>
      ) : null}
      <Form submit={offered ? 'Sign in with password' : 'Sign in'} busy={action.busy} label="Sign in with your password" onSubmit={() => void submit()}>
        <Field label="Email" name="email" type="email" autoComplete="username webauthn" value={email} onValue={setEmail} required error={action.error} />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onValue={setPassword}
          hint="Not needed when your organisation signs you in through its identity provider."
          error={action.error}
        />
      </Form>
      <p>
        <Link href="/forgot-password">Forgot your password?</Link> · <Link href="/sign-up">Create an account</Link>
      </p>
      <h2>Or</h2>
      <div class="button-row">
        {passkeysSupported() ? (
          <button
            type="button"
            disabled={action.busy}
            onClick={() =>
              void action.run(async () =>
                props.onAnswer(
                  await unwrap(api.POST('/v0/auth/passkeys/authentication/verify', { body: { response: (await passkeyAssertion()) as never } })),
                ),
              )
            }
          >
            Sign in with a passkey
          </button>
        ) : null}
        {providers.map((provider) => (
          <button type="button" key={provider.id} disabled={action.busy} onClick={() => void action.run(() => startProviderFlow(provider.id, 'login', props.next))}>
            Sign in with {provider.name}
          </button>
        ))}
      </div>
      <SingleSignOn next={props.next} />
    </Page>
  );
}

/** Email-first sign-in through an organisation's identity provider (docs/api.md, "Enterprise SSO"). */
function SingleSignOn(props: { next: string }) {
  const [typed, setTyped] = useState('');
  const action = useAction();
  return (
    <>
      <h2>Single sign-on</h2>
      <ProblemMessage error={action.error} />
      <Form submit="Sign in with SSO" busy={action.busy} label="Sign in with SSO" onSubmit={() => void action.run(() => startSsoSignIn(ssoTargetOf(typed), props.next))}>
        <Field
          label="Work email or organisation"
          name="sso"
          autoComplete="email"
          value={typed}
          onValue={setTyped}
          hint="Your work email address, or your organisation’s slug."
          required
          error={action.error}
        />
      </Form>
    </>
  );
}

function TotpStep(props: { tempToken: string; onSignedIn: (user: User) => void; onRestart: () => void }) {
  const [code, setCode] = useState('');
  const [backup, setBackup] = useState(false);
  const action = useAction();
  const verify = () =>
    action.run(async () => {
      const proof = backup ? { backup_code: code.trim() } : { code: code.trim() };
      props.onSignedIn(await unwrap(api.POST('/v0/auth/totp/verify', { body: { temp_token: props.tempToken, ...proof } })));
    });
  return (
    <Page title="Two-factor authentication">
      <p>{backup ? 'Enter one of your backup codes.' : 'Enter the 6-digit code your authenticator app shows.'}</p>
      <ProblemMessage error={action.error} />
      <Form submit="Verify" busy={action.busy} onSubmit={() => void verify()} label="Second factor">
        <Field
          label={backup ? 'Backup code' : 'Authentication code'}
          name={backup ? 'backup_code' : 'code'}
          autoComplete="one-time-code"
          inputMode={backup ? 'text' : 'numeric'}
          value={code}
          onValue={setCode}
          required
          error={action.error}
        />
      </Form>
      <p class="button-row">
        <button type="button" class="secondary" onClick={() => (setBackup(!backup), setCode(''))}>
          {backup ? 'Use an authenticator code' : 'Use a backup code'}
        </button>
        <button type="button" class="secondary" onClick={props.onRestart}>
          Start over
        </button>
      </p>
    </Page>
  );
}
