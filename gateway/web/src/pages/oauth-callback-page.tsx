import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, unwrap } from '../api';
import { Field, Form, ProblemMessage, useAction } from '../components/form';
import { SignInRefusal } from '../components/sso-required';
import { secondFactorOf } from '../components/reauthentication-dialog';
import { Page } from '../components/page';
import { takePendingFlow } from '../oauth';
import { forgetQuery, Link, navigate } from '../router';
import { useSession } from '../session';
import { pendingSignup, totpStep } from '../sign-in-steps';

/**
 * The redirect URI registered with each provider
 * (`{PUBLIC_APP_URL}/oauth/{provider}/callback`): it posts the code and
 * state to the gateway for the flow this tab started (sign-in, link or
 * re-authentication) and moves on.
 */
export function OAuthCallbackPage(props: { provider: string; code: string; state: string; error: string | null }) {
  const { setUser, refresh } = useSession();
  const [error, setError] = useState<ApiError | undefined>();
  /** Where to go once a provider re-authentication of an account with TOTP got its code. */
  const [codeThenReturnTo, setCodeThenReturnTo] = useState<string | undefined>();
  const started = useRef(false);
  /** Where the flow was going: an SSO sign-in offered after auth:sso_required goes there too. */
  const [returnTo, setReturnTo] = useState('/account');

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    forgetQuery();
    const flow = takePendingFlow(props.provider);
    if (flow) setReturnTo(flow.returnTo);
    const finish = async () => {
      if (props.error) throw new ApiError({ title: 'The provider did not sign you in.', status: 400, code: 'oauth:code_invalid', detail: props.error });
      if (!flow) throw new ApiError({ title: 'This sign-in was not started here.', status: 400, code: 'oauth:state_invalid', detail: 'Start again from the sign-in page.' });
      const path = { path: { provider: props.provider } };
      const body = { code: props.code, state: props.state };
      if (flow.purpose === 'link') {
        await unwrap(api.POST('/v0/auth/oauth/{provider}/link', { params: path, body }));
        await refresh();
        return navigate(flow.returnTo, { replace: true });
      }
      if (flow.purpose === 'reauthenticate') {
        try {
          await unwrap(api.POST('/v0/auth/oauth/{provider}/reauthenticate', { params: path, body }));
        } catch (caught) {
          // TOTP is on: the provider proved the first factor; a code completes the proof.
          if (caught instanceof ApiError && caught.code === 'auth:second_factor_required') return setCodeThenReturnTo(flow.returnTo);
          throw caught;
        }
        return navigate(flow.returnTo, { replace: true });
      }
      const answer = await unwrap(api.POST('/v0/auth/oauth/{provider}/login', { params: path, body }));
      if ('totp_required' in answer) {
        totpStep.keep(answer.temp_token);
        // The second factor, then where the flow was going (an application's sign-in, say).
        return navigate(`/sign-in?next=${encodeURIComponent(flow.returnTo)}`, { replace: true });
      }
      if (answer.status === 'pending_signup') {
        pendingSignup.keep({ pending_token: answer.pending_token, email: answer.email, name: answer.name, next: flow.returnTo });
        return navigate('/complete-signup', { replace: true });
      }
      setUser(answer.user);
      return navigate(flow.returnTo, { replace: true });
    };
    finish().catch((caught: unknown) => setError(caught instanceof ApiError ? caught : new ApiError({ title: String(caught), status: 0, code: 'internal:error' })));
  }, [props, setUser, refresh]);

  if (codeThenReturnTo !== undefined) return <SecondFactorStep returnTo={codeThenReturnTo} />;
  return (
    <Page title="Signing in">
      {error ? (
        <>
          <SignInRefusal error={error} next={returnTo} />
          <p>
            <Link href="/sign-in">Back to sign in</Link>
          </p>
        </>
      ) : (
        <p>One moment…</p>
      )}
    </Page>
  );
}

/** The code that completes a provider re-authentication of an account with TOTP, within 5 minutes. */
function SecondFactorStep(props: { returnTo: string }) {
  const [code, setCode] = useState('');
  const action = useAction();
  return (
    <Page title="Enter your code">
      <p>Your account has two-factor authentication: enter a code from your authenticator app, or a backup code, to finish confirming it is you.</p>
      <ProblemMessage error={action.error} />
      <Form
        submit="Confirm"
        busy={action.busy}
        label="Confirm with an authenticator code"
        onSubmit={() =>
          void action.run(async () => {
            await unwrap(api.POST('/v0/auth/reauthenticate', { body: secondFactorOf(code) }));
            navigate(props.returnTo, { replace: true });
          })
        }
      >
        <Field label="Authenticator or backup code" name="code" autoComplete="one-time-code" value={code} onValue={setCode} required error={action.error} />
      </Form>
    </Page>
  );
}
