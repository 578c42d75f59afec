import type { User } from '@latchkey/client';
import { useEffect, useState } from 'preact/hooks';
import { api, isApiError, unwrap } from '../api';
import { Notice, ProblemMessage, useAction } from '../components/form';
import { Page } from '../components/page';
import type { InvitationLookup } from '../orgs/organization';
import { INVITATION_PAGE, pendingInvitation } from '../pending-invitation';
import { forgetQuery, Link, navigate } from '../router';
import { useSession } from '../session';

/**
 * The invitation's token: from the mailed link, which then leaves the
 * address bar and is kept in the tab for the sign-in or sign-up on the way
 * (pending-invitation.ts); or, back here after those, the one kept.
 */
function useInvitationToken(fromLink: string): string | undefined {
  const [token] = useState(() => fromLink || pendingInvitation.read());
  useEffect(() => {
    if (!fromLink) return;
    pendingInvitation.keep(fromLink);
    forgetQuery();
  }, [fromLink]);
  return token;
}

/**
 * `{PUBLIC_APP_URL}/invitations/accept?token=T` (docs/api.md,
 * "Organisations"): what the invitation is for, to anyone with the link;
 * accepting it takes a signed-in account with the invited address and a
 * click, so that opening a link never joins anyone to anything.
 */
export function InvitationPage(props: { token: string }) {
  const token = useInvitationToken(props.token);
  const { user } = useSession();
  const [invitation, setInvitation] = useState<InvitationLookup | undefined>();
  const lookup = useAction();

  useEffect(() => {
    if (!token) return;
    void lookup.run(async () => {
      try {
        setInvitation(await unwrap(api.POST('/v0/invitations/lookup', { body: { token } })));
      } catch (error) {
        if (isApiError(error, 'org:invitation_invalid')) pendingInvitation.clear();
        throw error;
      }
    });
  }, [token]);

  // Signing up goes through a mailed link, which may open in another tab.
  useEffect(() => {
    if (token && invitation && user === null) pendingInvitation.handOver(token);
  }, [token, invitation, user]);

  if (!token) {
    return (
      <Page title="Invitation">
        <p>There is no invitation waiting in this tab. Open the link in the invitation mail again.</p>
      </Page>
    );
  }
  if (isApiError(lookup.error, 'org:invitation_invalid')) {
    return (
      <Page title="Invitation not valid">
        <ProblemMessage error={lookup.error} />
        <p>It may have expired, been used, or been withdrawn. Ask whoever invited you to send a new one.</p>
      </Page>
    );
  }
  if (!invitation || user === undefined) {
    return (
      <Page title="Invitation">
        {lookup.error ? <ProblemMessage error={lookup.error} /> : <p aria-busy="true">Checking your invitation…</p>}
      </Page>
    );
  }
  return (
    <Page title={`Join ${invitation.org.name}`}>
      <p>
        You are invited to join <strong>{invitation.org.name}</strong> ({invitation.org.slug}) as <strong>{invitation.role}</strong>. The invitation is
        for <strong>{invitation.email}</strong>.
      </p>
      {user ? <Acceptance token={token} invitation={invitation} user={user} /> : <SignInToAccept email={invitation.email} />}
    </Page>
  );
}

function SignInToAccept(props: { email: string }) {
  return (
    <>
      <p>
        Sign in with {props.email} to accept it. Without an account yet, create one with that address: we mail you a link to verify it, and after
        signing in you come back here.
      </p>
      <p class="button-row">
        <Link href={`/sign-in?next=${encodeURIComponent(INVITATION_PAGE)}`} class="button">
          Sign in
        </Link>
        <Link href="/sign-up" class="button">
          Create an account
        </Link>
      </p>
    </>
  );
}

function Acceptance(props: { token: string; invitation: InvitationLookup; user: User }) {
  const { refresh, signOut } = useSession();
  const action = useAction();
  const { invitation, user } = props;
  const otherAccount = user.email.toLowerCase() !== invitation.email.toLowerCase() || isApiError(action.error, 'org:invitation_email_mismatch');
  const forget = () => {
    pendingInvitation.clear();
    navigate('/');
  };
  const accept = () =>
    action.run(async () => {
      try {
        const org = await unwrap(api.POST('/v0/invitations/accept', { body: { token: props.token } }));
        pendingInvitation.clear();
        await refresh();
        navigate(`/orgs/${org.id}`, { replace: true });
      } catch (error) {
        if (isApiError(error, 'org:invitation_invalid', 'org:already_member')) pendingInvitation.clear();
        throw error;
      }
    });

  if (otherAccount) {
    return (
      <>
        <div class="problem" role="alert">
          <strong>You are signed in with another address.</strong>
          <p>
            This invitation is for {invitation.email}, and you are signed in as {user.email}. Sign out, then sign in or create an account with{' '}
            {invitation.email}.
          </p>
        </div>
        <p class="button-row">
          <button type="button" disabled={action.busy} onClick={() => void action.run(signOut)}>
            Sign out
          </button>
          <button type="button" class="secondary" onClick={forget}>
            Not now
          </button>
        </p>
      </>
    );
  }
  return (
    <>
      <ProblemMessage error={action.error} />
      {isApiError(action.error, 'org:already_member') ? (
        <Notice>
          You are a member already: <Link href={`/orgs/${invitation.org.id}`}>open {invitation.org.name}</Link>.
        </Notice>
      ) : null}
      <p class="button-row">
        <button type="button" disabled={action.busy} aria-busy={action.busy} onClick={() => void accept()}>
          Accept and join {invitation.org.name}
        </button>
        <button type="button" class="secondary" onClick={forget}>
          Not now
        </button>
      </p>
    </>
  );
}
