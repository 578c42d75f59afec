import type { components, User } from '@latchkey/client';
import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, isApiError, unwrap } from './api';
import { ReauthenticationDialog } from './components/reauthentication-dialog';

/** The signed-in account as GET /v0/users/me answers it: with the organisation this session acts for. */
export type SignedInUser = components['schemas']['Me'];

interface SessionContext {
  /** The signed-in account; null when signed out, undefined while it is asked for. */
  readonly user: SignedInUser | null | undefined;
  /** After a sign-in, which answers the account alone: a new session acts for no organisation. */
  readonly setUser: (user: User | SignedInUser | null) => void;
  /** Asks the API again, after a change elsewhere on the page. */
  readonly refresh: () => Promise<void>;
  /** Ends this session; the page stays where it is, signed out. */
  readonly signOut: () => Promise<void>;
  /**
   * Runs a privileged change; when the API answers that the session's proof
   * is too old (auth:reauthentication_required), asks the user to prove
   * who they are and runs it once more.
   */
  readonly withRecentProof: <T>(change: () => Promise<T>) => Promise<T>;
  /** Asks the user to prove who they are now; rejects when they cancel. */
  readonly confirmIdentity: () => Promise<void>;
}

const Session = createContext<SessionContext | undefined>(undefined);

export function useSession(): SessionContext {
  const session = useContext(Session);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

export function SessionProvider(props: { children: ComponentChildren }) {
  const [user, setSignedIn] = useState<SignedInUser | null | undefined>(undefined);
  const setUser = useCallback((account: User | SignedInUser | null) => setSignedIn(account ? { active_org: null, ...account } : null), []);
  const [asking, setAsking] = useState(false);
  const pending = useRef<{ resolve: () => void; reject: (error: unknown) => void } | undefined>(undefined);

  const refresh = useCallback(async () => {
    try {
      setSignedIn(await unwrap(api.GET('/v0/users/me')));
    } catch (error) {
      if (isApiError(error, 'auth:unauthorized')) setSignedIn(null);
      else throw error;
    }
  }, []);

  useEffect(() => {
    refresh().catch(() => setUser(null));
  }, [refresh]);

  const signOut = useCallback(async () => {
    await unwrap(api.POST('/v0/auth/logout')).catch(() => undefined);
    setUser(null);
  }, [setUser]);

  const confirmIdentity = useCallback(
    () =>
      new Promise<void>((resolve, reject) => {
        pending.current = { resolve, reject };
        setAsking(true);
      }),
    [],
  );

  const withRecentProof = useCallback(
    async <T,>(change: () => Promise<T>): Promise<T> => {
      try {
        return await change();
      } catch (error) {
        if (!isApiError(error, 'auth:reauthentication_required')) throw error;
        await confirmIdentity();
        return change();
      }
    },
    [confirmIdentity],
  );

  const context = useMemo(
    () => ({ user, setUser, refresh, signOut, withRecentProof, confirmIdentity }),
    [user, setUser, refresh, signOut, withRecentProof, confirmIdentity],
  );
  const finish = (proved: boolean) => {
    setAsking(false);
    const waiting = pending.current;
    pending.current = undefined;
    if (proved) waiting?.resolve();
    else waiting?.reject(new Error('Re-authentication was cancelled.'));
  };

  return (
    <Session.Provider value={context}>
      {props.children}
      {asking && user ? <ReauthenticationDialog user={user} onDone={finish} /> : null}
    </Session.Provider>
  );
}
