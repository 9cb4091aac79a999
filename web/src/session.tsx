// Who is signed in. On load the session cookie is tried once; the account is then read
// from `/me`. Signed in, the page is in the account's language (the one of its mails), on
// every device.
import { createContext, type ComponentChildren } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import { useLang } from './i18n';
import { api, ok, onSessionChange, refreshSession, signIn, signOut, type Schemas } from './api/client';

export type User = Schemas['UserProfile'];

interface Session {
  /** `undefined` while the first check runs. */
  user: User | null | undefined;
  signIn: (username: string, password: string) => Promise<void>;
  signOut: () => Promise<void>;
  /** Reads the account again (after the profile changed). */
  reload: () => Promise<void>;
}

const SessionContext = createContext<Session>({
  user: undefined,
  signIn: async () => {},
  signOut: async () => {},
  reload: async () => {},
});

export function SessionProvider({ children }: { children: ComponentChildren }) {
  const [user, setUser] = useState<User | null | undefined>(undefined);
  const { setLang } = useLang();
  const language = user?.language;
  useEffect(() => {
    if (language) setLang(language);
  }, [language]);
  const loadMe = async () => setUser(await ok(api.GET('/api/v1/me')));
  useEffect(() => {
    const stop = onSessionChange((signedIn) => {
      if (!signedIn) setUser(null);
    });
    void (async () => {
      if (await refreshSession()) {
        try {
          await loadMe();
        } catch {
          setUser(null);
        }
      } else {
        setUser(null);
      }
    })();
    return stop;
  }, []);
  const value: Session = {
    user,
    signIn: async (username, password) => {
      await signIn(username, password);
      await loadMe();
    },
    signOut: async () => {
      await signOut();
      setUser(null);
    },
    reload: loadMe,
  };
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession() {
  return useContext(SessionContext);
}
