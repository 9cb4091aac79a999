import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { defineMessages, LANGS, useLang, useMessages } from '../i18n';
import { useSession } from '../session';
import { useOffline } from '../api/connection';

const msgs = defineMessages({
  skip: { en: 'Skip to content', ja: '本文へ移動' },
  lobby: { en: 'Lobby', ja: 'ロビー' },
  newGame: { en: 'New game', ja: '新しいゲーム' },
  settings: { en: 'Settings', ja: '設定' },
  leaderboards: { en: 'Leaderboards', ja: 'ランキング' },
  tournaments: { en: 'Tournaments', ja: 'トーナメント' },
  signIn: { en: 'Sign in', ja: 'ログイン' },
  signUp: { en: 'Sign up', ja: '新規登録' },
  signOut: { en: 'Sign out', ja: 'ログアウト' },
  language: { en: 'Language', ja: '言語' },
  mainNav: { en: 'Main', ja: 'メイン' },
  menu: { en: 'Menu', ja: 'メニュー' },
  offline: {
    en: 'Offline: the server cannot be reached. What you see may be out of date, and nothing you do is sent until it is back.',
    ja: 'オフライン：サーバーに接続できません。表示が古い可能性があり、接続が戻るまで操作は送信されません。',
  },
});

/**
 * After a navigation inside the page, focus moves to the new screen's heading (or to the
 * main region), so a keyboard or screen-reader user starts at the top of what changed.
 * Only the path counts: `?at=` moves of the replay slider keep the focus on the slider.
 */
function useFocusOnNavigation() {
  const { path } = useLocation();
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    // The new screen renders (and may load) after the route changes; wait for a frame.
    const frame = requestAnimationFrame(() => {
      const target = document.querySelector<HTMLElement>('main h1') ?? document.getElementById('main');
      if (!target) return;
      if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
      target.focus();
    });
    return () => cancelAnimationFrame(frame);
  }, [path]);
}

export function Shell({ children }: { children: ComponentChildren }) {
  useFocusOnNavigation();
  const m = useMessages(msgs);
  const { lang } = useLang();
  // Signed in, the switch sets the account's language: the page's and the mails' (one
  // language per account, on every device).
  const { user, signOut, chooseLang } = useSession();
  const offline = useOffline();
  // On a phone the links fold behind one Menu button, so the bar is one row; it folds again
  // after each navigation.
  const [menu, setMenu] = useState(false);
  const { path } = useLocation();
  useEffect(() => setMenu(false), [path]);
  return (
    <>
      <a class="skip" href="#main">
        {m.skip}
      </a>
      {/* Above everything and kept in sight while scrolling: wherever the player is working. */}
      <p class="offline-banner" role="status" data-testid="offline" hidden={!offline}>
        {offline ? m.offline : ''}
      </p>
      <header class="top" data-menu={menu ? 'open' : 'closed'}>
        <a class="brand" href="/">
          Kontor
        </a>
        <button type="button" class="menu-toggle secondary" aria-expanded={menu} aria-controls="top-menu" onClick={() => setMenu(!menu)} data-testid="menu">
          {m.menu}
        </button>
        <nav aria-label={m.mainNav} id="top-menu">
          {user && (
            <>
              <a href="/">{m.lobby}</a>
              <a href="/new">{m.newGame}</a>
              <a href="/leaderboards">{m.leaderboards}</a>
              <a href="/tournaments">{m.tournaments}</a>
              <a href="/settings">{m.settings}</a>
            </>
          )}
          {user === null && (
            <>
              <a href="/signin">{m.signIn}</a>
              <a href="/signup">{m.signUp}</a>
              <a href="/leaderboards">{m.leaderboards}</a>
            </>
          )}
        </nav>
        <label class="lang">
          <span class="visually-hidden">{m.language}</span>
          <select value={lang} onChange={(e) => chooseLang(e.currentTarget.value as (typeof LANGS)[number])}>
            <option value="en">English</option>
            <option value="ja">日本語</option>
          </select>
        </label>
        {user && (
          <span class="who">
            <span data-testid="signed-in-as">{user.username}</span>{' '}
            <button type="button" onClick={() => void signOut()}>
              {m.signOut}
            </button>
          </span>
        )}
      </header>
      <main id="main" tabIndex={-1}>{children}</main>
    </>
  );
}
