/**
 * The token of an invitation link (docs/api.md, "Organisations") while its
 * visitor signs in or signs up first: in the tab's sessionStorage, never in
 * the address bar, so that the acceptance page finds it again afterwards.
 *
 * Signing up goes through a mail, and a mail's link opens in a new tab,
 * which does not share the first tab's sessionStorage. So while a
 * signed-out tab holds an invitation it also hands it over through
 * localStorage, for an hour: the next tab of this browser that looks for
 * one (the sign-in page after the verification link) takes it into its own
 * sessionStorage and removes it from localStorage. The token lets nobody in:
 * only an account with the invited address, verified, accepts it.
 */
const KEY = 'latchkey.invitation';
const HANDOFF_KEY = 'latchkey.invitation-handoff';
const HANDOFF_LIFETIME_MS = 60 * 60 * 1000;

interface Handoff {
  readonly token: string;
  readonly until: number;
}

function takeHandoff(): string | undefined {
  const raw = localStorage.getItem(HANDOFF_KEY);
  if (!raw) return undefined;
  localStorage.removeItem(HANDOFF_KEY);
  try {
    const handoff = JSON.parse(raw) as Partial<Handoff>;
    return typeof handoff.token === 'string' && typeof handoff.until === 'number' && handoff.until > Date.now() ? handoff.token : undefined;
  } catch {
    return undefined;
  }
}

export const pendingInvitation = {
  keep: (token: string) => sessionStorage.setItem(KEY, token),
  /** This tab's invitation, or one a signed-out tab handed over, which this tab then keeps. */
  read: (): string | undefined => {
    const kept = sessionStorage.getItem(KEY);
    if (kept) return kept;
    const handedOver = takeHandoff();
    if (handedOver) sessionStorage.setItem(KEY, handedOver);
    return handedOver;
  },
  handOver: (token: string) => localStorage.setItem(HANDOFF_KEY, JSON.stringify({ token, until: Date.now() + HANDOFF_LIFETIME_MS } satisfies Handoff)),
  clear: () => {
    sessionStorage.removeItem(KEY);
    localStorage.removeItem(HANDOFF_KEY);
  },
};

/** The acceptance page: where a mailed invitation link opens, and where signing in goes back to while an invitation waits. */
export const INVITATION_PAGE = '/invitations/accept';
