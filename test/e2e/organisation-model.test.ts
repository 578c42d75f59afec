import fc from 'fast-check';
import type { ApiClient } from '../support/api-client';
import { countMails, mailedToken, PASSWORD, signedInAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';

/**
 * A model-based property test of organisations (docs/api.md,
 * "Organisations"): random sequences of create, invite, accept, change
 * role, remove, leave and delete account, run against the whole system
 * through the gateway, and after every step compared with the small
 * reference model below. The model says what each call must answer and
 * what every account's organisations must then be; no organisation may
 * ever be left without an owner.
 */
const RUNS = Number(process.env.ORG_MODEL_RUNS ?? 10);
const ACCOUNTS = 5;
const UNLIMITED = '1000000';

let stack: E2eStack;

beforeAll(async () => {
  stack = await startE2eStack('orgmodel', {
    RATE_LIMIT_IP_MAX: UNLIMITED,
    RATE_LIMIT_MAIL_MAX: UNLIMITED,
    RATE_LIMIT_ORG_CREATES: UNLIMITED,
    RATE_LIMIT_INVITATIONS: UNLIMITED,
  });
}, 90_000);

afterAll(async () => {
  await stack?.destroy();
});

type Role = 'owner' | 'admin' | 'member';

/** What the system must hold, and answer. */
interface Model {
  readonly accounts: { readonly alive: boolean }[];
  /** Organisations by their position of creation; undefined once deleted. */
  readonly orgs: ({ readonly members: Map<number, Role>; readonly invitations: { invitee: number; role: Role; inviter: number; token: string; open: boolean }[] } | undefined)[];
}

/** The system: the accounts' clients, and the organisations' real ids, in the model's order. */
interface Real {
  readonly accounts: { readonly id: string; readonly email: string; readonly client: ApiClient }[];
  readonly orgIds: string[];
}

const mayManage = (role: Role | undefined) => role === 'owner' || role === 'admin';
const ownersOf = (members: Map<number, Role>) => [...members.values()].filter((role) => role === 'owner').length;

/** Asserts a call's answer: a status, and for a refusal its code. */
function answered(response: { status: number; body: Record<string, unknown> }, status: number, code?: string): void {
  expect({ status: response.status, code: status >= 400 ? response.body?.code : undefined }).toEqual({ status, code: status >= 400 ? code : undefined });
}

abstract class Step implements fc.AsyncCommand<Model, Real> {
  check(model: Readonly<Model>): boolean {
    return model.accounts[this.actor]!.alive;
  }
  constructor(protected readonly actor: number) {}
  abstract run(model: Model, real: Real): Promise<void>;
  abstract toString(): string;
}

class CreateOrg extends Step {
  async run(model: Model, real: Real): Promise<void> {
    const created = await real.accounts[this.actor]!.client.post<{ id: string }>('/v0/orgs', { name: 'Model', slug: `m-${real.orgIds.length}-${Date.now().toString(36)}` });
    answered(created, 201);
    real.orgIds.push(created.body.id);
    model.orgs.push({ members: new Map([[this.actor, 'owner']]), invitations: [] });
  }
  toString(): string {
    return `create(${this.actor})`;
  }
}

/**
 * A step on one organisation. Its actor (and target) are drawn mostly
 * among the organisation's members, so that the steps that need a member
 * happen, and sometimes among every account, so that strangers are tried.
 */
abstract class OrgStep extends Step {
  constructor(
    actor: number,
    protected readonly org: number,
    protected readonly insider: boolean,
  ) {
    super(actor);
  }
  override check(model: Readonly<Model>): boolean {
    return model.orgs.length > 0 && model.accounts[this.actorOf(model)]!.alive;
  }
  /** The organisation this step acts on: any created so far, deleted ones included. */
  protected position(model: Readonly<Model>): number {
    return this.org % model.orgs.length;
  }
  protected state(model: Model) {
    return model.orgs[this.position(model)];
  }
  protected orgId(model: Readonly<Model>, real: Real): string {
    return real.orgIds[this.position(model)]!;
  }
  /** An account: the `pick`th member of the organisation for an insider step, else the `pick`th account. */
  protected accountOf(model: Readonly<Model>, pick: number): number {
    const members = [...(model.orgs[this.position(model)]?.members.keys() ?? [])].sort();
    return this.insider && members.length > 0 ? members[pick % members.length]! : pick % model.accounts.length;
  }
  protected actorOf(model: Readonly<Model>): number {
    return this.accountOf(model, this.actor);
  }
}

class Invite extends OrgStep {
  constructor(
    actor: number,
    org: number,
    insider: boolean,
    private readonly invitee: number,
    private readonly role: Role,
  ) {
    super(actor, org, insider);
  }
  override check(model: Readonly<Model>): boolean {
    return super.check(model) && model.accounts[this.invitee]!.alive;
  }
  async run(model: Model, real: Real): Promise<void> {
    const org = this.state(model);
    const invitee = real.accounts[this.invitee]!;
    const before = countMails(stack, invitee.email, 'invitations/accept');
    const actor = this.actorOf(model);
    const response = await real.accounts[actor]!.client.post(`/v0/orgs/${this.orgId(model, real)}/invitations`, { email: invitee.email, role: this.role });
    const actorRole = org?.members.get(actor);
    if (!org || actorRole === undefined) return answered(response, 404, 'org:not_found');
    if (!mayManage(actorRole) || (this.role === 'owner' && actorRole !== 'owner')) return answered(response, 403, 'org:forbidden');
    if (org.members.has(this.invitee)) return answered(response, 409, 'org:already_member');
    if (org.invitations.some((invitation) => invitation.open && invitation.invitee === this.invitee)) return answered(response, 409, 'org:invitation_pending');
    answered(response, 201);
    const token = await mailedToken(stack, invitee.email, 'invitations/accept', before);
    org.invitations.push({ invitee: this.invitee, role: this.role, inviter: actor, token, open: true });
  }
  toString(): string {
    return `invite(${this.actor}, org ${this.org}, ${this.invitee} as ${this.role})`;
  }
}

/** An invited account follows its link: any invitation made so far, open or not, to an account still there. */
class Accept extends Step {
  constructor(private readonly pick: number) {
    super(0);
  }
  private invitations(model: Readonly<Model>) {
    return model.orgs.flatMap((org) => (org ? org.invitations.filter((invitation) => model.accounts[invitation.invitee]!.alive).map((invitation) => ({ org, invitation })) : []));
  }
  override check(model: Readonly<Model>): boolean {
    return this.invitations(model).length > 0;
  }
  async run(model: Model, real: Real): Promise<void> {
    const found = this.invitations(model);
    const { org, invitation } = found[this.pick % found.length]!;
    const response = await real.accounts[invitation.invitee]!.client.post('/v0/invitations/accept', { token: invitation.token });
    if (!invitation.open) return answered(response, 400, 'org:invitation_invalid');
    if (org.members.has(invitation.invitee)) return answered(response, 409, 'org:already_member');
    answered(response, 200);
    invitation.open = false;
    org.members.set(invitation.invitee, invitation.role);
  }
  toString(): string {
    return `accept(invitation ${this.pick})`;
  }
}

class ChangeRole extends OrgStep {
  constructor(
    actor: number,
    org: number,
    insider: boolean,
    private readonly target: number,
    private readonly role: Role,
  ) {
    super(actor, org, insider);
  }
  async run(model: Model, real: Real): Promise<void> {
    const org = this.state(model);
    const [actor, target] = [this.actorOf(model), this.accountOf(model, this.target)];
    const response = await real.accounts[actor]!.client.patch(`/v0/orgs/${this.orgId(model, real)}/members/${real.accounts[target]!.id}`, { role: this.role });
    const actorRole = org?.members.get(actor);
    if (!org || actorRole === undefined) return answered(response, 404, 'org:not_found');
    if (!mayManage(actorRole)) return answered(response, 403, 'org:forbidden');
    const targetRole = org.members.get(target);
    if (targetRole === undefined) return answered(response, 404, 'org:member_not_found');
    if ((targetRole === 'owner' || this.role === 'owner') && actorRole !== 'owner') return answered(response, 403, 'org:forbidden');
    if (targetRole === this.role) return answered(response, 200);
    if (targetRole === 'owner' && ownersOf(org.members) <= 1) return answered(response, 409, 'org:last_owner');
    answered(response, 200);
    org.members.set(target, this.role);
  }
  toString(): string {
    return `role(${this.actor}, org ${this.org}, ${this.target} to ${this.role})`;
  }
}

class Remove extends OrgStep {
  constructor(
    actor: number,
    org: number,
    insider: boolean,
    /** The member to remove; undefined: the actor leaves. */
    private readonly target: number | undefined,
  ) {
    super(actor, org, insider);
  }
  async run(model: Model, real: Real): Promise<void> {
    const org = this.state(model);
    const actor = this.actorOf(model);
    const target = this.target === undefined ? actor : this.accountOf(model, this.target);
    if (!model.accounts[target]!.alive) return;
    const response = await real.accounts[actor]!.client.delete(`/v0/orgs/${this.orgId(model, real)}/members/${real.accounts[target]!.id}`);
    const actorRole = org?.members.get(actor);
    if (!org || actorRole === undefined) return answered(response, 404, 'org:not_found');
    const leaving = actor === target;
    if (!leaving && !mayManage(actorRole)) return answered(response, 403, 'org:forbidden');
    const targetRole = org.members.get(target);
    if (targetRole === undefined) return answered(response, 404, 'org:member_not_found');
    if (targetRole === 'owner' && actorRole !== 'owner') return answered(response, 403, 'org:forbidden');
    if (targetRole === 'owner' && ownersOf(org.members) <= 1) return answered(response, 409, 'org:last_owner');
    answered(response, 204);
    org.members.delete(target);
  }
  toString(): string {
    return this.target === undefined ? `leave(${this.actor}, org ${this.org})` : `remove(${this.actor}, org ${this.org}, ${this.target})`;
  }
}

class DeleteAccount extends Step {
  async run(model: Model, real: Real): Promise<void> {
    const response = await real.accounts[this.actor]!.client.request('DELETE', '/v0/users/me', { json: { password: PASSWORD } });
    const blocking = model.orgs.some((org) => org?.members.get(this.actor) === 'owner' && org.members.size > 1 && ownersOf(org.members) === 1);
    if (blocking) return answered(response, 409, 'org:last_owner');
    answered(response, 204);
    model.accounts[this.actor] = { alive: false };
    model.orgs.forEach((org, position) => {
      if (!org) return;
      if (org.members.has(this.actor) && org.members.size === 1) {
        model.orgs[position] = undefined;
        return;
      }
      org.members.delete(this.actor);
      for (const invitation of org.invitations) if (invitation.inviter === this.actor || invitation.invitee === this.actor) invitation.open = false;
    });
  }
  toString(): string {
    return `delete(${this.actor})`;
  }
}

/** After every step: each living account's organisations and roles are the model's, and each organisation has an owner. */
async function compare(model: Model, real: Real): Promise<void> {
  for (const [position, account] of real.accounts.entries()) {
    if (!model.accounts[position]!.alive) continue;
    const listed = await account.client.get<{ items: { id: string; role: string }[] }>('/v0/orgs');
    const actual = new Map(listed.body.items.map((org) => [org.id, org.role]));
    const expected = new Map(
      model.orgs.flatMap((org, orgPosition) => (org?.members.has(position) ? [[real.orgIds[orgPosition]!, org.members.get(position)!] as const] : [])),
    );
    expect(actual).toEqual(expected);
  }
  for (const [position, org] of model.orgs.entries()) {
    if (!org) continue;
    expect(ownersOf(org.members)).toBeGreaterThanOrEqual(1);
    const [memberPosition] = [...org.members.keys()];
    const members = await real.accounts[memberPosition!]!.client.get<{ items: { role: string }[] }>(`/v0/orgs/${real.orgIds[position]}/members?limit=100`);
    expect(members.body.items.filter((member) => member.role === 'owner').length).toBe(ownersOf(org.members));
  }
}

const account = fc.nat({ max: ACCOUNTS - 1 });
const orgPosition = fc.nat({ max: 7 });
/** Admins most: an admin is where most of the rules about owners meet. */
const role = fc.constantFrom<Role>('admin', 'admin', 'member', 'owner');
const pick = fc.nat({ max: 7 });
/** Three steps in four by a member of the organisation. */
const insider = fc.nat({ max: 3 }).map((draw) => draw > 0);
const create = account.map((actor) => new CreateOrg(actor));
const invite = fc.tuple(pick, orgPosition, insider, account, role).map(([actor, org, inside, invitee, asRole]) => new Invite(actor, org, inside, invitee, asRole));
const accept = fc.nat().map((chosen) => new Accept(chosen));
const changeRole = fc.tuple(pick, orgPosition, insider, pick, role).map(([actor, org, inside, target, asRole]) => new ChangeRole(actor, org, inside, target, asRole));
const remove = fc.tuple(pick, orgPosition, insider, pick).map(([actor, org, inside, target]) => new Remove(actor, org, inside, target));
const leave = fc.tuple(pick, orgPosition, insider).map(([actor, org, inside]) => new Remove(actor, org, inside, undefined));
const deleteAccount = account.map((actor) => new DeleteAccount(actor));
/** Listed more than once to be drawn more often: most steps change members; a deleted account takes no more steps. */
const steps = [
  ...Array<typeof create>(2).fill(create),
  ...Array<typeof invite>(5).fill(invite),
  ...Array<typeof accept>(5).fill(accept),
  ...Array<typeof changeRole>(5).fill(changeRole),
  ...Array<typeof remove>(2).fill(remove),
  ...Array<typeof leave>(2).fill(leave),
  deleteAccount,
];

/** Long sequences: a short one rarely reaches an organisation with an admin, two owners or a pending invitation. */
const sequences = fc.commands(steps, { maxCommands: 50, size: 'max' }).filter((commands) => [...commands].length >= 20);

/** What ran, by kind: a property whose steps were all skipped would prove nothing. */
const ran = new Map<string, number>();

it(`matches a reference model of memberships and roles after every step, and never leaves an organisation without an owner (${RUNS} runs)`, async () => {
  await fc.assert(
    fc.asyncProperty(sequences, async (commands) => {
      const accounts = await Promise.all(Array.from({ length: ACCOUNTS }, (_unused, position) => signedInAccount(stack, `model${position}`)));
      const model: Model = { accounts: accounts.map(() => ({ alive: true })), orgs: [] };
      const real: Real = { accounts, orgIds: [] };
      await fc.asyncModelRun(
        () => ({ model, real }),
        [...commands].map((command) => ({
          check: (state: Readonly<Model>) => command.check(state),
          run: async (state: Model, system: Real) => {
            const kind = command.toString().slice(0, command.toString().indexOf('('));
            ran.set(kind, (ran.get(kind) ?? 0) + 1);
            await command.run(state, system);
            await compare(state, system);
          },
          toString: () => command.toString(),
        })),
      );
    }),
    { numRuns: RUNS, endOnFailure: true },
  );
  for (const kind of ['create', 'invite', 'accept', 'role', 'remove', 'leave', 'delete']) expect({ kind, ran: (ran.get(kind) ?? 0) > 0 }).toEqual({ kind, ran: true });
}, 600_000);
