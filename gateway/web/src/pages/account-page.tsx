import { ActivitySection } from '../account/activity-section';
import { ApplicationsSection } from '../account/applications-section';
import { ConnectionsSection } from '../account/connections-section';
import { DeleteAccountSection } from '../account/delete-account-section';
import { PasskeysSection } from '../account/passkeys-section';
import { ProfileSection } from '../account/profile-section';
import { SessionsSection } from '../account/sessions-section';
import { TotpSection } from '../account/totp-section';
import { SignInFirst } from '../components/layout';
import { Page } from '../components/page';
import { useSession } from '../session';

export function AccountPage() {
  const { user } = useSession();
  if (user === undefined) return <p aria-busy="true">Loading…</p>;
  if (user === null) {
    return (
      <Page title="Your account">
        <SignInFirst />
      </Page>
    );
  }
  return (
    <Page title="Your account">
      <ProfileSection user={user} />
      <TotpSection />
      <PasskeysSection />
      <ConnectionsSection />
      <SessionsSection />
      <ApplicationsSection />
      <ActivitySection />
      <DeleteAccountSection user={user} />
    </Page>
  );
}
