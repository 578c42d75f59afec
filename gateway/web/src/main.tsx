import { render } from 'preact';
import './styles.css';
import { Layout } from './components/layout';
import { Page } from './components/page';
import { AccountPage } from './pages/account-page';
import { CompleteSignupPage } from './pages/complete-signup-page';
import { ForgotPasswordPage } from './pages/forgot-password-page';
import { HomePage } from './pages/home-page';
import { InvitationPage } from './pages/invitation-page';
import { OAuthCallbackPage } from './pages/oauth-callback-page';
import { DevicePage } from './pages/device-page';
import { OidcInteractionPage } from './pages/oidc-interaction-page';
import { OrganisationPage } from './pages/organisation-page';
import { OrganisationsPage } from './pages/organisations-page';
import { PostEditorPage } from './pages/post-editor-page';
import { PostPage } from './pages/post-page';
import { SearchPage } from './pages/search-page';
import { SignInPage } from './pages/sign-in-page';
import { SignUpPage } from './pages/sign-up-page';
import { SsoErrorPage, SsoSecondFactorPage } from './pages/sso-pages';
import { CancelEmailChangePage, ConfirmEmailChangePage, ResetPasswordPage, VerifyEmailPage } from './pages/mailed-link-pages';
import { INVITATION_PAGE, pendingInvitation } from './pending-invitation';
import { Link, useLocation } from './router';
import { SessionProvider } from './session';

const UUID = '[0-9a-f-]{36}';

/** Where signing in goes when the link did not say: back to an invitation this tab holds, else the account. */
function afterSignIn(): string {
  return pendingInvitation.read() ? INVITATION_PAGE : '/account';
}

/** Which page a path shows; the mailed links (docs/api.md, "Links and tokens") among them. */
function Routes() {
  const { path, query } = useLocation();
  const post = new RegExp(`^/posts/(${UUID})$`).exec(path);
  const edit = new RegExp(`^/posts/(${UUID})/edit$`).exec(path);
  const callback = /^\/oauth\/([a-z]+)\/callback$/.exec(path);
  const org = new RegExp(`^/orgs/(${UUID})$`).exec(path);
  const interaction = /^\/oidc\/interaction\/([A-Za-z0-9_-]+)$/.exec(path);
  if (path === '/') return <HomePage />;
  if (path === '/sso/error') return <SsoErrorPage code={query.get('code') ?? ''} />;
  if (path === '/sso/second-factor') return <SsoSecondFactorPage next={query.get('next') ?? undefined} />;
  if (path === '/search') return <SearchPage query={query.get('q') ?? ''} />;
  if (path === '/sign-in') return <SignInPage next={query.get('next') ?? afterSignIn()} />;
  if (path === '/sign-up') return <SignUpPage />;
  if (path === '/verify-email') return <VerifyEmailPage token={query.get('token') ?? ''} />;
  if (path === '/reset-password') return <ResetPasswordPage token={query.get('token') ?? ''} />;
  if (path === '/confirm-email-change') return <ConfirmEmailChangePage token={query.get('token') ?? ''} />;
  if (path === '/cancel-email-change') return <CancelEmailChangePage token={query.get('token') ?? ''} />;
  if (path === '/forgot-password') return <ForgotPasswordPage />;
  if (path === '/complete-signup') return <CompleteSignupPage />;
  if (callback) return <OAuthCallbackPage provider={callback[1]!} code={query.get('code') ?? ''} state={query.get('state') ?? ''} error={query.get('error')} />;
  if (path === '/account') return <AccountPage />;
  if (path === INVITATION_PAGE) return <InvitationPage token={query.get('token') ?? ''} />;
  if (path === '/orgs') return <OrganisationsPage />;
  if (org) return <OrganisationPage orgId={org[1]!} />;
  if (interaction) return <OidcInteractionPage uid={interaction[1]!} />;
  if (path === '/device') return <DevicePage userCode={query.get('user_code') ?? ''} done={query.has('done')} denied={query.has('denied')} />;
  if (path === '/posts/new') return <PostEditorPage />;
  if (edit) return <PostEditorPage postId={edit[1]} />;
  if (post) return <PostPage postId={post[1]!} />;
  return (
    <Page title="Page not found">
      <p>
        There is no such page. <Link href="/">Go to the newest posts</Link>.
      </p>
    </Page>
  );
}

render(
  <SessionProvider>
    <Layout>
      <Routes />
    </Layout>
  </SessionProvider>,
  document.getElementById('app')!,
);
