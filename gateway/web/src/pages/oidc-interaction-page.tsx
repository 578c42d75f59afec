import type { paths, User } from '@latchkey/client';
import { useEffect, useState } from 'preact/hooks';
import { api, isApiError, unwrap, type ApiError } from '../api';
import { ProblemMessage, useAction } from '../components/form';
import { Page } from '../components/page';
import { describeScope } from '../oidc/scopes';
import { useSession } from '../session';
import { SignInPage } from './sign-in-page';

type Interaction = paths['/v0/oidc/interactions/{uid}']['get']['responses'][200]['content']['application/json'];

/**
 * docs/oidc.md, "The interaction": an application sent this browser here to
 * sign in through Latchkey. Nothing is confirmed without a click: signed
 * out, the user signs in (any way the sign-in page offers); a request that
 * wants a fresher or multi-factor proof asks for one; an application the
 * user has not allowed is named with what it asks for, and allowed with a
 * button. When nothing is left to ask (a first-party application, one
 * allowed before) the browser goes back to the authorization request, and
 * the provider answers the application from the session. Only the browser
 * that started the request can open it (the API answers 404 elsewhere).
 */
export function OidcInteractionPage(props: { uid: string }) {
  const { user, setUser, withRecentProof } = useSession();
  const [interaction, setInteraction] = useState<Interaction | undefined>();
  const [missing, setMissing] = useState<ApiError | undefined>();
  const action = useAction();
  const path = `/oidc/interaction/${encodeURIComponent(props.uid)}`;

  const load = () =>
    unwrap(api.GET('/v0/oidc/interactions/{uid}', { params: { path: { uid: props.uid } } })).then(setInteraction, (error: unknown) => {
      if (isApiError(error)) setMissing(error);
    });
  useEffect(() => {
    if (user !== undefined) void load();
  }, [props.uid, user]);

  // Back to the authorization request, which decides from the session: a navigation, never a confirmation.
  const resumeUrl = user ? interaction?.resume_url : undefined;
  useEffect(() => {
    if (resumeUrl) window.location.assign(resumeUrl);
  }, [resumeUrl]);

  const leave = async (to: Promise<{ redirect_to: string }>) => window.location.assign((await to).redirect_to);
  const confirm = () =>
    action.run(() => withRecentProof(() => leave(unwrap(api.POST('/v0/oidc/interactions/{uid}/confirm', { params: { path: { uid: props.uid } } })))));
  const deny = () => action.run(() => leave(unwrap(api.POST('/v0/oidc/interactions/{uid}/deny', { params: { path: { uid: props.uid } } }))));
  const signOut = () =>
    action.run(async () => {
      await unwrap(api.POST('/v0/auth/logout'));
      setUser(null);
    });

  if (missing) {
    return (
      <Page title="Sign-in request not found">
        <ProblemMessage error={missing} />
        <p>This sign-in request has expired, or it was started in another browser. Go back to the application and sign in again from there.</p>
      </Page>
    );
  }
  if (user === undefined || !interaction) return <p aria-busy="true">Loading…</p>;
  const name = interaction.client.client_name;
  if (user === null) {
    return (
      <>
        <p class="notice" role="status">
          {interaction.device ? 'Sign in to allow a device to use your account.' : <>Sign in to continue to <strong>{name}</strong>.</>}
        </p>
        <SignInPage next={path} />
      </>
    );
  }
  if (resumeUrl) return <p aria-busy="true">Signing you in to {name}…</p>;

  const buttons = (allow: string) => (
    <div class="button-row">
      <button type="button" disabled={action.busy} onClick={() => void confirm()}>
        {allow}
      </button>
      <button type="button" class="secondary" disabled={action.busy} onClick={() => void deny()}>
        {interaction.device ? 'Deny' : `Go back to ${name}`}
      </button>
    </div>
  );

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
  if (interaction.prompt === 'login' && !interaction.reauthentication_required) {
    return (
      <Page title={`Sign in to ${name}`}>
        <ProblemMessage error={action.error} />
        <p>
          <strong>{name}</strong> asked for another account than <Account user={user} />. Sign out and sign in with that account, or go back.
        </p>
        <div class="button-row">
          <button type="button" disabled={action.busy} onClick={() => void signOut()}>
            Sign out
          </button>
          <button type="button" class="secondary" disabled={action.busy} onClick={() => void deny()}>
            Go back to {name}
          </button>
        </div>
      </Page>
    );
  }
  if (interaction.device) {
    return (
      <Page title="Allow a device?">
        <ProblemMessage error={action.error} />
        <p class="notice" role="alert">
          A device, not this browser, will be signed in to your account. Allow it only if you started this sign-in yourself on a device in front of you
          (a TV, a command-line tool) and it shows the code you entered. Someone who sent you a code or a link is trying to get into your account.
        </p>
        <p>
          <strong>{name}</strong> on that device will be able to:
        </p>
        <Scopes scopes={interaction.scopes} />
        <p class="meta">
          It will act as <Account user={user} />. You can withdraw this at any time from your account page.
        </p>
        {interaction.reauthentication_required && <p>{name} asks you to confirm that it is you first.</p>}
        {buttons(interaction.reauthentication_required ? 'Confirm it is me and allow the device' : 'Allow the device')}
      </Page>
    );
  }
  return (
    <Page title={`Sign in to ${name}`}>
      <ProblemMessage error={action.error} />
      <p>
        <strong>{name}</strong> wants to sign you in as <Account user={user} /> and to:
      </p>
      <Scopes scopes={interaction.scopes} />
      {interaction.reauthentication_required && <p>It asks you to confirm that it is you first.</p>}
      <p class="meta">You can withdraw this at any time from your account page.</p>
      {buttons(interaction.reauthentication_required ? 'Confirm it is me' : `Allow ${name}`)}
    </Page>
  );
}

function Account(props: { user: User }) {
  return (
    <strong>
      {props.user.handle} ({props.user.email})
    </strong>
  );
}

function Scopes(props: { scopes: readonly string[] }) {
  return (
    <ul class="item-list" aria-label="What the application asks for">
      {props.scopes.map((scope) => (
        <li key={scope}>{describeScope(scope)}</li>
      ))}
    </ul>
  );
}
