// Who is signed in. On load the session cookie is tried once; the account is then read
// from `/me`. Signed in, the page is in the account's language (the one of its mails), on
// every device, and the language switch sets the account's.
import { createContext, type ComponentChildren } from 'preact';
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { useLang, type Lang } from './i18n';
import { api, ok, onSessionChange, refreshSession, signIn, signOut, type Schemas } from './api/client';
import { forgetThisDevice } from './api/push';
import { isUnreachable, onConnectionChange } from './api/connection';

export type User = Schemas['UserProfile'];

interface Session {
  /** `undefined` while the first check runs. */
  user: User | null | undefined;
  signIn: (username: string, password: string) => Promise<void>;
  signOut: () => Promise<void>;
  /** Reads the account again (after the profile changed). */
  reload: () => Promise<void>;
  /** Switches the page's language and, signed in, the account's. */
  chooseLang: (lang: Lang) => void;
}

const SessionContext = createContext<Session>({
  user: undefined,
  signIn: async () => {},
  signOut: async () => {},
  reload: async () => {},
  chooseLang: () => {},
});

export function SessionProvider({ children }: { children: ComponentChildren }) {
  const [user, setUserState] = useState<User | null | undefined>(undefined);
  // The same, at once: a switch made between an answer and the next render must see it.
  const known = useRef<User | null | undefined>(undefined);
  const setUser = (next: User | null) => {
    known.current = next;
    setUserState(next);
  };
  // A language chosen while the first check still reads the account is the person's latest
  // word: it is written to the account when the account arrives, instead of the account's
  // older language taking the page back.
  const chosenEarly = useRef<Lang | null>(null);
  const { setLang } = useLang();
  const language = user?.language;
  useEffect(() => {
    if (language) setLang(language);
  }, [language]);
  const saveLang = (l: Lang) => ok(api.PUT('/api/v1/me/profile', { body: { language: l } }));
  const loadMe = async () => setUser(await ok(api.GET('/api/v1/me')));
  useEffect(() => {
    const stop = onSessionChange((signedIn) => {
      if (!signedIn) setUser(null);
    });
    const check = async () => {
      if (!(await refreshSession())) {
        // A server that did not answer has not said "signed out": the page waits (with the
        // offline banner) and asks again when it answers.
        if (!isUnreachable()) setUser(null);
        return;
      }
      try {
        const me = await ok(api.GET('/api/v1/me'));
        const early = chosenEarly.current;
        chosenEarly.current = null;
        setUser(early && early !== me.language ? await saveLang(early).catch(() => me) : me);
      } catch {
        if (!isUnreachable()) setUser(null);
      }
    };
    void check();
    const stopWaiting = onConnectionChange(() => {
      if (!isUnreachable() && known.current === undefined) void check();
    });
    return () => {
      stop();
      stopWaiting();
    };
  }, []);
  const value: Session = {
    user,
    signIn: async (username, password) => {
      await signIn(username, password);
      await loadMe();
    },
    signOut: async () => {
      // This device's push notifications were the account's: the next person here gets none.
      await forgetThisDevice().catch(() => {});
      await signOut();
      setUser(null);
    },
    reload: loadMe,
    chooseLang: (l) => {
      setLang(l);
      const current = known.current;
      if (current === undefined) chosenEarly.current = l;
      else if (current && current.language !== l) void saveLang(l).then(setUser, () => {});
    },
  };
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession() {
  return useContext(SessionContext);
}
