import { type ApiError, isApiError } from '../api';
import { startSsoSignIn } from '../sso';
import { ProblemMessage, useAction } from './form';

/**
 * A refused sign-in: when the refusal is auth:sso_required (the account's
 * organisation enforces SSO), it says so and offers that organisation's
 * identity provider; any other problem is shown as it is.
 */
export function SignInRefusal(props: { error: ApiError | undefined; next: string }) {
  const action = useAction();
  const slug = isApiError(props.error, 'auth:sso_required') ? props.error.problem.org_slug : undefined;
  if (slug === undefined) return <ProblemMessage error={props.error} />;
  return (
    <>
      <div class="problem" role="alert">
        <strong>Your organisation requires single sign-on.</strong>
        <p>Accounts of the organisation “{slug}” sign in through its identity provider, not with a password, a passkey or Google or GitHub.</p>
      </div>
      <ProblemMessage error={action.error} />
      <p>
        <button type="button" disabled={action.busy} onClick={() => void action.run(() => startSsoSignIn({ org_slug: slug }, props.next))}>
          Sign in with SSO ({slug})
        </button>
      </p>
    </>
  );
}
