// Two languages, English and Japanese. Messages live beside the code that shows them:
//
//   const msgs = defineMessages({
//     bid: { en: 'Bid', ja: '入札' },
//     left: { en: (n: number) => `${n} left`, ja: (n: number) => `残り${n}` },
//   });
//   const m = useMessages(msgs);   // m.bid, m.left(3)
//
// The language is the browser's at first and can be switched; the choice is remembered.
import { createContext, type ComponentChildren } from 'preact';
import { useContext, useMemo, useState } from 'preact/hooks';

export type Lang = 'en' | 'ja';
export const LANGS: Lang[] = ['en', 'ja'];

type Message = string | ((...args: never[]) => string);
type Table = Record<string, { en: Message; ja: Message }>;
type Resolved<T extends Table> = { [K in keyof T]: T[K]['en'] };

export function defineMessages<T extends Table>(table: T): T {
  return table;
}

export function resolve<T extends Table>(table: T, lang: Lang): Resolved<T> {
  const out: Record<string, Message> = {};
  for (const [key, value] of Object.entries(table)) out[key] = value[lang];
  return out as Resolved<T>;
}

/**
 * A count with its noun, in English: `count(1, 'cube')` is "1 cube", `count(3, 'cube')` is
 * "3 cubes" (`many` for an irregular plural). Japanese has no plural: its messages put the
 * counter word after the number themselves.
 */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

const STORAGE_KEY = 'kontor.lang';

function initialLang(): Lang {
  const stored = localStorage.getItem(STORAGE_KEY);
  if (stored === 'en' || stored === 'ja') return stored;
  return navigator.languages.some((l) => l.toLowerCase().startsWith('ja')) ? 'ja' : 'en';
}

const LangContext = createContext<{ lang: Lang; setLang: (l: Lang) => void }>({
  lang: 'en',
  setLang: () => {},
});

export function LangProvider({ children }: { children: ComponentChildren }) {
  const [lang, setLangState] = useState<Lang>(initialLang);
  const value = useMemo(
    () => ({
      lang,
      setLang: (l: Lang) => {
        localStorage.setItem(STORAGE_KEY, l);
        document.documentElement.lang = l;
        setLangState(l);
      },
    }),
    [lang],
  );
  document.documentElement.lang = lang;
  return <LangContext.Provider value={value}>{children}</LangContext.Provider>;
}

export function useLang() {
  return useContext(LangContext);
}

export function useMessages<T extends Table>(table: T): Resolved<T> {
  const { lang } = useLang();
  return useMemo(() => resolve(table, lang), [table, lang]);
}
