import type { paths } from '@latchkey/client';
import { useEffect, useState } from 'preact/hooks';
import { api, isApiError, unwrap, type ApiError } from '../api';
import { ProblemMessage, useAction } from '../components/form';
import { Page } from '../components/page';
import { describeScope } from '../oidc/scopes';
import { useSession } from '../session';
import { SignInPage } from './sign-in-page';

type Interaction = paths['/v0/oidc/interactions/{uid}']['get']['responses'][200]['content']['application/json'];

/**
 * docs/oidc.md, "The interaction": an application sent the browser here to
 * sign in through Latchkey. Signed out, the user signs in (any way the
 * sign-in page offers); a request that wants a fresher proof asks for one;
 * then the consent names the application and what it asks for, unless the
 * user allowed it already or it is first-party.
 */
export function OidcInteractionPage(props: { uid: string }) {
  const { user, withRecentProof } = useSession();
  const [interaction, setInteraction] = useState<Interaction | undefined>();
  const [missing, setMissing] = useState<ApiError | undefined>();
  const action = useAction();
  const path = `/oidc/interaction/${encodeURIComponent(props.uid)}`;

  useEffect(() => {
    if (user === undefined) return;
    unwrap(api.GET('/v0/oidc/interactions/{uid}', { params: { path: { uid: props.uid } } })).then(setInteraction, (error: unknown) => {
      if (isApiError(error)) setMissing(error);
    });
  }, [props.uid, user]);

  const leave = async (to: Promise<{ redirect_to: string }>) => window.location.assign((await to).redirect_to);
  const confirm = () =>
    action.run(() => withRecentProof(() => leave(unwrap(api.POST('/v0/oidc/interactions/{uid}/confirm', { params: { path: { uid: props.uid } } })))));
  const deny = () => action.run(() => leave(unwrap(api.POST('/v0/oidc/interactions/{uid}/deny', { params: { path: { uid: props.uid } } }))));

  // Allowed already, or first-party: nothing to ask.
  const automatic = user && interaction?.consented && !interaction.reauthentication_required;
  useEffect(() => {
    if (automatic) void confirm();
  }, [automatic]);

  if (missing) {
    return (
      <Page title="Sign-in request expired">
        <ProblemMessage error={missing} />
        <p>Go back to the application and sign in again.</p>
      </Page>
    );
  }
  if (user === undefined || !interaction) return <p aria-busy="true">Loading…</p>;
  const name = interaction.client.client_name;
  if (user === null) {
    return (
      <>
        <p class="notice" role="status">
          Sign in to continue to <strong>{name}</strong>.
        </p>
        <SignInPage next={path} />
      </>
    );
  }
  if (automatic) return <p aria-busy="true">Signing you in to {name}…</p>;
  // A proof the account cannot give: it has neither a passkey nor TOTP to make a multi-factor sign-in with.
  if (interaction.multi_factor_required && !user.totp_enabled && user.passkeys_count === 0) {
    return (
      <Page title={`Sign in to ${name}`}>
        <ProblemMessage error={action.error} />
        <p>
          <strong>{name}</strong> requires a two-factor sign-in, and your account has no second factor yet. Add a passkey or turn on two-factor
          authentication on your <a href="/account">account page</a>, then sign in to {name} again.
        </p>
        <div class="button-row">
          <button type="button" class="secondary" disabled={action.busy} onClick={() => void deny()}>
            Go back to {name}
          </button>
        </div>
      </Page>
    );
  }
  return (
    <Page title={`Sign in to ${name}`}>
      <ProblemMessage error={action.error} />
      {interaction.reauthentication_required ? (
        <p>{name} asks you to confirm that it is you before it signs you in.</p>
      ) : (
        <>
          <p>
            <strong>{name}</strong> wants to:
          </p>
          <ul class="item-list" aria-label="What the application asks for">
            {interaction.scopes.map((scope) => (
              <li key={scope}>{describeScope(scope)}</li>
            ))}
          </ul>
          <p class="meta">Signed in as {user.handle}. You can withdraw this at any time from your account page.</p>
        </>
      )}
      <div class="button-row">
        <button type="button" disabled={action.busy} onClick={() => void confirm()}>
          {interaction.reauthentication_required ? 'Confirm it is me' : 'Allow'}
        </button>
        <button type="button" class="secondary" disabled={action.busy} onClick={() => void deny()}>
          Deny
        </button>
      </div>
    </Page>
  );
}
