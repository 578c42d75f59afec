import type { JSX } from 'preact';
import { useId } from 'preact/hooks';
import type { OrganizationRole } from './organization';

/**
 * A labelled choice among the organisation's roles. `owner` is offered to
 * owners only: only an owner hands it out (docs/api.md, "Organisations").
 * `label` may carry a part for screen readers only (whose role it is);
 * `noneLabel` offers no role at all (value '') first.
 */
export function RoleSelect(props: {
  label: string;
  labelDetail?: string;
  roles: readonly OrganizationRole[];
  callerRole: string;
  value: string;
  noneLabel?: string;
  onValue: (role: string) => void;
}) {
  const id = `role-${useId()}`;
  const offered = props.roles.filter((role) => role.name !== 'owner' || props.callerRole === 'owner' || role.name === props.value);
  return (
    <div class="field">
      <label for={id}>
        {props.label}
        {props.labelDetail ? <span class="visually-hidden"> {props.labelDetail}</span> : null}
      </label>
      <select id={id} value={props.value} onChange={(event: JSX.TargetedEvent<HTMLSelectElement>) => props.onValue(event.currentTarget.value)}>
        {props.noneLabel === undefined ? null : <option value="">{props.noneLabel}</option>}
        {offered.map((role) => (
          <option key={role.name} value={role.name}>
            {role.name}
          </option>
        ))}
      </select>
    </div>
  );
}
