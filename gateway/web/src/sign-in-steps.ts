/**
 * What a sign-in leaves for the next page of the same tab: the TOTP login
 * token after a first factor, or the pending sign-up of a new provider
 * user. In sessionStorage, so that a reload keeps them and another tab does
 * not see them; they are short-lived on the server anyway.
 */
const TOTP_KEY = 'latchkey.totp';
const SIGNUP_KEY = 'latchkey.pending-signup';

export interface PendingSignup {
  readonly pending_token: string;
  readonly email: string;
  readonly name?: string | null;
  /** Where the sign-in that found no account was going (an application's sign-in request, say). */
  readonly next?: string;
}

export const totpStep = {
  keep: (tempToken: string) => sessionStorage.setItem(TOTP_KEY, tempToken),
  read: () => sessionStorage.getItem(TOTP_KEY) ?? undefined,
  clear: () => sessionStorage.removeItem(TOTP_KEY),
};

export const pendingSignup = {
  keep: (signup: PendingSignup) => sessionStorage.setItem(SIGNUP_KEY, JSON.stringify(signup)),
  read: (): PendingSignup | undefined => {
    const raw = sessionStorage.getItem(SIGNUP_KEY);
    return raw ? (JSON.parse(raw) as PendingSignup) : undefined;
  },
  clear: () => sessionStorage.removeItem(SIGNUP_KEY),
};
