import type { ErrorCode } from '@latchkey/client';
import { useEffect, useState } from 'preact/hooks';
import { Page } from '../components/page';
import { navigate, Link } from '../router';
import { totpStep } from '../sign-in-steps';
import { ssoReturn } from '../sso';
import { safeNext } from './sign-in-page';

/**
 * What went wrong, by the code the gateway put in `/sso/error?code=`. The
 * code comes from the address bar, which anyone can write: it only picks
 * one of these texts and is never shown itself.
 */
const ssoErrors: Partial<Record<ErrorCode, { title: string; text: string }>> = {
  'sso:response_invalid': {
    title: 'The identity provider’s answer was refused',
    text: 'Your organisation’s identity provider answered, but its answer could not be trusted (a signature, its age or its audience did not check out), so you were not signed in. Try again; if it happens again, tell your organisation’s administrator.',
  },
  'sso:domain_mismatch': {
    title: 'That address is not one of your organisation’s',
    text: 'The identity provider signed you in with an email address outside the domains your organisation has verified, so you were not signed in. Ask your organisation’s administrator to check the email attribute of the connection.',
  },
  'sso:connection_not_found': {
    title: 'No single sign-on for this organisation',
    text: 'This organisation has no single sign-on connection (any more). Sign in another way, or ask its administrator.',
  },
};

const genericSsoError = {
  title: 'Single sign-on did not work',
  text: 'You were not signed in. Try again from the sign-in page; if it keeps failing, tell your organisation’s administrator.',
};

/** `{PUBLIC_APP_URL}/sso/error?code=…`: where a failed SSO sign-in lands (docs/api.md, "Enterprise SSO"). */
export function SsoErrorPage(props: { code: string }) {
  // The sign-in this tab started was going somewhere (an application's sign-in request): trying again goes there too.
  const [next] = useState(() => ssoReturn.take());
  const { title, text } = ssoErrors[props.code as ErrorCode] ?? genericSsoError;
  return (
    <Page title={title}>
      <p>{text}</p>
      <p>
        <Link href={next ? `/sign-in?next=${encodeURIComponent(safeNext(next))}` : '/sign-in'}>Back to sign in</Link>
      </p>
    </Page>
  );
}

/**
 * `{PUBLIC_APP_URL}/sso/second-factor?next=…#temp_token=…`: the identity
 * provider signed in an account with TOTP on. The challenge comes in the
 * fragment; it is kept for this tab like a password sign-in's, and the
 * sign-in page asks for the code, then goes where the SSO sign-in was
 * going (`next`, from the gateway; only a path of this app is followed).
 */
export function SsoSecondFactorPage(props: { next: string | undefined }) {
  const [missing, setMissing] = useState(false);
  useEffect(() => {
    const tempToken = new URLSearchParams(window.location.hash.slice(1)).get('temp_token');
    if (!tempToken) return setMissing(true);
    totpStep.keep(tempToken);
    ssoReturn.take();
    navigate(`/sign-in?next=${encodeURIComponent(safeNext(props.next))}`, { replace: true });
  }, []);
  return (
    <Page title="Signing in">
      {missing ? (
        <p>
          This sign-in has nothing to finish. <Link href="/sign-in">Sign in again</Link>.
        </p>
      ) : (
        <p>One moment…</p>
      )}
    </Page>
  );
}
