import { useEffect, useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import { formatDate } from '../components/dates';
import { Field, Form, Notice, ProblemMessage, useAction } from '../components/form';
import type { Organization, OrganizationInvitation, OrganizationRole } from './organization';
import { RoleSelect } from './role-select';

const PAGE_SIZE = 20;

const STATUSES: Record<OrganizationInvitation['status'], { text: string; class: string }> = {
  pending: { text: 'Pending', class: 'badge' },
  accepted: { text: 'Accepted', class: 'badge' },
  revoked: { text: 'Revoked', class: 'badge danger' },
  expired: { text: 'Expired', class: 'badge danger' },
};

/**
 * docs/api.md, "Organisations" (invitations:manage): invite an address with
 * a role, which mails it a link; the invitations, newest first, a page at a
 * time; revoking a pending one, whose link fails from then on.
 */
export function InvitationsSection(props: { org: Organization; roles: readonly OrganizationRole[] | undefined }) {
  const { org } = props;
  const [invitations, setInvitations] = useState<OrganizationInvitation[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const list = useAction();

  const fetchPage = (after: string | undefined) =>
    list.run(async () => {
      const query = { limit: PAGE_SIZE, ...(after ? { cursor: after } : {}) };
      const page = await unwrap(api.GET('/v0/orgs/{org_id}/invitations', { params: { path: { org_id: org.id }, query } }));
      setInvitations((shown) => (after ? [...shown, ...page.items] : page.items));
      setCursor(page.next_cursor);
    });
  useEffect(() => {
    void fetchPage(undefined);
  }, [org.id]);

  const revoke = (invitation: OrganizationInvitation) =>
    list.run(async () => {
      await unwrap(api.DELETE('/v0/orgs/{org_id}/invitations/{id}', { params: { path: { org_id: org.id, id: invitation.id } } }));
      setInvitations((shown) => shown.map((item) => (item.id === invitation.id ? { ...item, status: 'revoked' } : item)));
    });

  return (
    <section aria-labelledby="invitations-title">
      <h2 id="invitations-title">Invitations</h2>
      <Invite org={org} roles={props.roles} onSent={(invitation) => setInvitations((shown) => [invitation, ...shown])} />
      <ProblemMessage error={list.error} />
      {invitations.length === 0 && !list.busy ? <p>No invitations yet.</p> : null}
      <ul class="item-list" aria-label="Invitations" aria-busy={list.busy}>
        {invitations.map((invitation) => (
          <li key={invitation.id}>
            <strong>{invitation.email}</strong>
            <span class={STATUSES[invitation.status].class}>{STATUSES[invitation.status].text}</span>
            <span class="meta">
              role: {invitation.role}; sent {formatDate(invitation.created_at)}
              {invitation.status === 'pending' ? `; the link works until ${formatDate(invitation.expires_at)}` : ''}
            </span>
            {invitation.status === 'pending' ? (
              <button type="button" class="danger" disabled={list.busy} onClick={() => void revoke(invitation)}>
                Revoke <span class="visually-hidden">the invitation of {invitation.email}</span>
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      {cursor ? (
        <button type="button" class="secondary" disabled={list.busy} onClick={() => void fetchPage(cursor)}>
          More invitations
        </button>
      ) : null}
    </section>
  );
}

/** The role is chosen from the organisation's roles; a caller who may not read them (no members:read) types its name. */
function Invite(props: { org: Organization; roles: readonly OrganizationRole[] | undefined; onSent: (invitation: OrganizationInvitation) => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState('member');
  const [sent, setSent] = useState<string | undefined>();
  const action = useAction();
  return (
    <>
      <ProblemMessage error={action.error} />
      {sent ? <Notice>We mailed an invitation to {sent}.</Notice> : null}
      <Form
        submit="Send invitation"
        busy={action.busy}
        label="Invite someone"
        onSubmit={() =>
          void action.run(async () => {
            setSent(undefined);
            const invitation = await unwrap(api.POST('/v0/orgs/{org_id}/invitations', { params: { path: { org_id: props.org.id } }, body: { email, role } }));
            props.onSent(invitation);
            setSent(invitation.email);
            setEmail('');
          })
        }
      >
        <Field
          label="Email"
          name="email"
          type="email"
          autoComplete="off"
          value={email}
          onValue={setEmail}
          hint="Only an account with this address, verified, can accept."
          required
          error={action.error}
        />
        {props.roles ? (
          <RoleSelect label="Role" roles={props.roles} callerRole={props.org.role} value={role} onValue={setRole} />
        ) : (
          <Field label="Role" name="role" value={role} onValue={setRole} required error={action.error} />
        )}
      </Form>
    </>
  );
}
