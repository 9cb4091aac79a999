// Account settings of one's own: the profile (display name, language of the mails, time zone),
// the download of everything stored about me, the players I blocked, and deleting the account.
import { useEffect, useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../../api/client';
import { errorText } from '../../api/errors';
import { defineMessages, useLang, useMessages, type Lang } from '../../i18n';
import { useSession } from '../../session';
import { ConfirmButton } from '../../components/ConfirmButton';

const msgs = defineMessages({
  profile: { en: 'Profile', ja: 'プロフィール' },
  profileHint: {
    en: 'Your display name is shown beside your username at the table. Mail comes in your language, and mail and these pages show times in your time zone.',
    ja: '表示名はテーブルでユーザー名の横に表示されます。メールは選んだ言語で届き、メールとこのページの時刻はあなたのタイムゾーンで表示されます。',
  },
  displayName: { en: 'Display name (empty = none)', ja: '表示名（空欄 = なし）' },
  language: { en: 'Language of mails and of this page', ja: 'メールとこのページの言語' },
  timeZone: { en: 'Time zone', ja: 'タイムゾーン' },
  save: { en: 'Save', ja: '保存' },
  saved: { en: 'Saved.', ja: '保存しました。' },
  yourData: { en: 'Your data', ja: 'あなたのデータ' },
  yourDataHint: {
    en: 'Everything Kontor stores about you, as one JSON file: account, preferences, vacations, tokens and logins (no secrets), your games and the players you blocked.',
    ja: 'Kontorが保存しているあなたのデータすべてを1つのJSONファイルで: アカウント、設定、休暇、トークンとログイン（秘密情報を除く）、あなたのゲーム、ブロックしたプレイヤー。',
  },
  download: { en: 'Download my data', ja: 'データをダウンロード' },
  blocked: { en: 'Blocked players', ja: 'ブロックしたプレイヤー' },
  blockedHint: {
    en: 'Neither of you can invite the other, and neither can join an open game where the other sits. They are not told.',
    ja: 'お互いに招待できず、相手が着席している募集中のゲームにも参加できません。相手には通知されません。',
  },
  username: { en: 'Username', ja: 'ユーザー名' },
  block: { en: 'Block', ja: 'ブロック' },
  unblock: { en: 'Unblock', ja: 'ブロック解除' },
  noneBlocked: { en: 'You have blocked nobody.', ja: 'ブロックしているプレイヤーはいません。' },
  deleteAccount: { en: 'Delete account', ja: 'アカウントの削除' },
  deleteHint: {
    en: 'For good. Your address, password, tokens, preferences and mail are removed and your name becomes a placeholder. In running games the bot takes your seat (or it is forfeited, as each game was set up); the games and their logs stay.',
    ja: '元に戻せません。メールアドレス、パスワード、トークン、設定、メールは削除され、名前は仮の名前になります。進行中のゲームではボットがあなたの席を引き継ぎます（ゲームの設定によっては棄権）。ゲームとその記録は残ります。',
  },
  password: { en: 'Your password, to confirm', ja: '確認のためのパスワード' },
  reallyDelete: {
    en: 'Delete your account for good? This cannot be undone.',
    ja: 'アカウントを完全に削除しますか？元に戻せません。',
  },
});

function useError() {
  const { lang } = useLang();
  const [error, setError] = useState<string | null>(null);
  const line = error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;
  return { line, clear: () => setError(null), fail: (err: unknown) => setError(errorText(err, lang)) };
}

/** The IANA zones this browser knows (empty where it cannot list them). */
function knownZones(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
  try {
    return intl.supportedValuesOf?.('timeZone') ?? [];
  } catch {
    return [];
  }
}

export function ProfileForm() {
  const m = useMessages(msgs);
  const session = useSession();
  const [profile, setProfile] = useState<Schemas['UserProfile'] | null>(null);
  const [name, setName] = useState('');
  const [language, setLanguage] = useState<Lang>('en');
  const [zone, setZone] = useState('UTC');
  const [saved, setSaved] = useState(false);
  const error = useError();
  const show = (p: Schemas['UserProfile']) => {
    setProfile(p);
    setName(p.display_name ?? '');
    setLanguage(p.language);
    setZone(p.time_zone);
  };
  useEffect(() => {
    void ok(api.GET('/api/v1/me')).then(show).catch(error.fail);
  }, []);
  const save = async (e: Event) => {
    e.preventDefault();
    setSaved(false);
    error.clear();
    try {
      const body = { display_name: name.trim() ? name.trim() : null, language, time_zone: zone.trim() };
      show(await ok(api.PUT('/api/v1/me/profile', { body })));
      // The session reads the account again: the page follows its language (the mails') and
      // shows times in its zone.
      await session.reload();
      setSaved(true);
    } catch (err) {
      error.fail(err);
    }
  };
  return (
    <section aria-labelledby="profile-title" data-testid="profile">
      <h2 id="profile-title">{m.profile}</h2>
      <p class="hint">{m.profileHint}</p>
      {profile && (
        <form onSubmit={save}>
          <label>
            {m.displayName}
            <input value={name} maxLength={40} onInput={(e) => setName(e.currentTarget.value)} data-testid="display-name" />
          </label>
          <label>
            {m.language}
            <select value={language} onChange={(e) => setLanguage(e.currentTarget.value as Lang)}>
              <option value="en">English</option>
              <option value="ja">日本語</option>
            </select>
          </label>
          <label>
            {m.timeZone}
            <input value={zone} list="time-zones" required onInput={(e) => setZone(e.currentTarget.value)} />
            <datalist id="time-zones">
              {knownZones().map((z) => (
                <option key={z} value={z} />
              ))}
            </datalist>
          </label>
          <button type="submit">{m.save}</button>
        </form>
      )}
      <p aria-live="polite" class="ok">
        {saved ? m.saved : ''}
      </p>
      {error.line}
    </section>
  );
}

export function YourData() {
  const m = useMessages(msgs);
  const error = useError();
  const download = async () => {
    error.clear();
    try {
      const data = await ok(api.GET('/api/v1/me/export'));
      const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = 'kontor-my-data.json';
      a.click();
      URL.revokeObjectURL(url);
    } catch (err) {
      error.fail(err);
    }
  };
  return (
    <section aria-labelledby="data-title">
      <h2 id="data-title">{m.yourData}</h2>
      <p class="hint">{m.yourDataHint}</p>
      <button type="button" onClick={() => void download()}>
        {m.download}
      </button>
      {error.line}
    </section>
  );
}

export function Blocked() {
  const m = useMessages(msgs);
  const [items, setItems] = useState<Schemas['BlockedUser'][] | null>(null);
  const [name, setName] = useState('');
  const error = useError();
  const reload = () => ok(api.GET('/api/v1/me/blocks')).then((list) => setItems(list.items));
  useEffect(() => {
    void reload().catch(error.fail);
  }, []);
  const call = async (send: () => Promise<unknown>) => {
    error.clear();
    try {
      await send();
      await reload();
    } catch (err) {
      error.fail(err);
    }
  };
  const block = (e: Event) => {
    e.preventDefault();
    const username = name.trim();
    void call(async () => {
      await ok(api.PUT('/api/v1/me/blocks/{username}', { params: { path: { username } } }));
      setName('');
    });
  };
  return (
    <section aria-labelledby="blocked-title" data-testid="blocked">
      <h2 id="blocked-title">{m.blocked}</h2>
      <p class="hint">{m.blockedHint}</p>
      <form onSubmit={block}>
        <label>
          {m.username}
          <span class="row">
            <input value={name} required onInput={(e) => setName(e.currentTarget.value)} />
            <button type="submit" disabled={!name.trim()}>
              {m.block}
            </button>
          </span>
        </label>
      </form>
      {error.line}
      {items && items.length === 0 && <p class="muted">{m.noneBlocked}</p>}
      {items && items.length > 0 && (
        <ul class="games">
          {items.map((b) => (
            <li key={b.user_id}>
              <strong>{b.username}</strong>{' '}
              <button
                type="button"
                class="secondary"
                onClick={() =>
                  void call(() => ok(api.DELETE('/api/v1/me/blocks/{username}', { params: { path: { username: b.username } } })))
                }
              >
                {m.unblock}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function DeleteAccount() {
  const m = useMessages(msgs);
  const session = useSession();
  const [password, setPassword] = useState('');
  const error = useError();
  const remove = async () => {
    error.clear();
    try {
      await ok(api.POST('/api/v1/me/delete', { body: { password } }));
      await session.signOut();
    } catch (err) {
      error.fail(err);
    }
  };
  return (
    <section aria-labelledby="delete-title" data-testid="delete-account">
      <h2 id="delete-title">{m.deleteAccount}</h2>
      <p class="hint">{m.deleteHint}</p>
      <label>
        {m.password}
        <input type="password" autocomplete="current-password" value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
      </label>
      {password && (
        <ConfirmButton question={m.reallyDelete} onConfirm={() => void remove()}>
          {m.deleteAccount}
        </ConfirmButton>
      )}
      {error.line}
    </section>
  );
}
