import type { ComponentChildren } from 'preact';
import { Link, navigate } from '../router';
import { useSession } from '../session';
import { OrganisationSwitcher } from './organisation-switcher';

/** The frame of every page: a skip link, the site's navigation, the page. */
export function Layout(props: { children: ComponentChildren }) {
  const { user, signOut } = useSession();
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="site-header">
        <nav aria-label="Site">
          <Link href="/" class="brand">
            Latchkey
          </Link>
          <ul>
            <li>
              <Link href="/search">Search</Link>
            </li>
            {user ? (
              <>
                <li>
                  <Link href="/posts/new">Write</Link>
                </li>
                <li>
                  <Link href="/orgs">Organisations</Link>
                </li>
                <li>
                  <Link href="/account">Account</Link>
                </li>
                <li>
                  <button type="button" class="link-button" onClick={() => void signOut().then(() => navigate('/sign-in'))}>
                    Sign out
                  </button>
                </li>
              </>
            ) : user === null ? (
              <>
                <li>
                  <Link href="/sign-in">Sign in</Link>
                </li>
                <li>
                  <Link href="/sign-up">Sign up</Link>
                </li>
              </>
            ) : null}
          </ul>
        </nav>
        {user ? <OrganisationSwitcher user={user} /> : null}
      </header>
      <main id="main">{props.children}</main>
    </>
  );
}

/** What a page that needs an account shows to someone signed out; signing in comes back to this page, query and all. */
export function SignInFirst() {
  return (
    <p>
      Please <Link href={`/sign-in?next=${encodeURIComponent(window.location.pathname + window.location.search)}`}>sign in</Link> first.
    </p>
  );
}
