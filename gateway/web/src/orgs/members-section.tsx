import type { User } from '@latchkey/client';
import { useEffect, useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import { formatDate } from '../components/dates';
import { ProblemMessage, useAction } from '../components/form';
import { allows, type Organization, type OrganizationMember, type OrganizationRole } from './organization';
import { RoleSelect } from './role-select';

const PAGE_SIZE = 50;

const SOURCES: Record<OrganizationMember['source'], string> = {
  creator: 'created it',
  invitation: 'invited',
  sso: 'through single sign-on',
  scim: 'provisioned by the directory',
  admin: 'added by an administrator',
};

/**
 * docs/api.md, "Organisations": the members in the order they joined, a
 * page at a time; with members:manage, their roles and removing them. Only
 * an owner changes or removes an owner; the last owner stays (409
 * org:last_owner, shown as the API words it).
 */
export function MembersSection(props: { org: Organization; roles: readonly OrganizationRole[]; user: User; onOwnMembershipChanged: () => Promise<void> }) {
  const { org } = props;
  const [members, setMembers] = useState<OrganizationMember[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const action = useAction();

  const fetchPage = (after: string | undefined) =>
    action.run(async () => {
      const query = { limit: PAGE_SIZE, ...(after ? { cursor: after } : {}) };
      const page = await unwrap(api.GET('/v0/orgs/{org_id}/members', { params: { path: { org_id: org.id }, query } }));
      setMembers((shown) => (after ? [...shown, ...page.items] : page.items));
      setCursor(page.next_cursor);
    });
  useEffect(() => {
    void fetchPage(undefined);
  }, [org.id]);

  const replaced = async (updated: OrganizationMember) => {
    setMembers((shown) => shown.map((member) => (member.user.id === updated.user.id ? updated : member)));
    if (updated.user.id === props.user.id) await props.onOwnMembershipChanged();
  };
  const removed = (userId: string) => setMembers((shown) => shown.filter((member) => member.user.id !== userId));

  return (
    <section aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      <ProblemMessage error={action.error} />
      <ul class="item-list" aria-label="Members" aria-busy={action.busy}>
        {members.map((member) => (
          <MemberItem
            key={member.user.id}
            org={org}
            member={member}
            roles={props.roles}
            self={member.user.id === props.user.id}
            busy={action.busy}
            run={action.run}
            onReplaced={replaced}
            onRemoved={removed}
          />
        ))}
      </ul>
      {cursor ? (
        <button type="button" class="secondary" disabled={action.busy} onClick={() => void fetchPage(cursor)}>
          More members
        </button>
      ) : null}
    </section>
  );
}

function MemberItem(props: {
  org: Organization;
  member: OrganizationMember;
  roles: readonly OrganizationRole[];
  self: boolean;
  busy: boolean;
  run: ReturnType<typeof useAction>['run'];
  onReplaced: (member: OrganizationMember) => Promise<void>;
  onRemoved: (userId: string) => void;
}) {
  const { org, member } = props;
  const [role, setRole] = useState(member.role);
  const handle = member.user.handle;
  const path = { params: { path: { org_id: org.id, user_id: member.user.id } } };
  const manages = allows(org, 'members:manage') && (member.role !== 'owner' || org.role === 'owner');
  return (
    <li>
      <strong>{handle}</strong>
      {props.self ? <span class="badge">You</span> : null}
      <span class="meta">
        {member.user.email}; role: {member.role}; joined {formatDate(member.joined_at)}, {SOURCES[member.source]}
      </span>
      {manages ? (
        <form
          class="inline-form"
          aria-label={`Role of ${handle}`}
          onSubmit={(event) => {
            event.preventDefault();
            void props.run(async () => props.onReplaced(await unwrap(api.PATCH('/v0/orgs/{org_id}/members/{user_id}', { ...path, body: { role } }))));
          }}
        >
          <RoleSelect label="Role" labelDetail={`of ${handle}`} roles={props.roles} callerRole={org.role} value={role} onValue={setRole} />
          <button type="submit" class="secondary" disabled={props.busy || role === member.role}>
            Change role <span class="visually-hidden">of {handle}</span>
          </button>
          {props.self ? null : (
            <button
              type="button"
              class="danger"
              disabled={props.busy}
              onClick={() => {
                if (!window.confirm(`Remove ${handle} from ${org.name}?`)) return;
                void props.run(async () => {
                  await unwrap(api.DELETE('/v0/orgs/{org_id}/members/{user_id}', path));
                  props.onRemoved(member.user.id);
                });
              }}
            >
              Remove <span class="visually-hidden">{handle}</span>
            </button>
          )}
        </form>
      ) : null}
    </li>
  );
}
