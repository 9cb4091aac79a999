// Settings, in sections grouped by what they are about (the account, notices, play, bots and
// tools, one's data), with a list of them to jump to: beside the sections on a wide screen,
// above them on a phone, where each section ends with a link back to the list.
import { useEffect, useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api/client';
import { errorText } from '../api/errors';
import { defineMessages, useLang, useMessages } from '../i18n';
import { useSession } from '../session';
import { ConfirmButton } from '../components/ConfirmButton';
import { ShownOnce } from '../components/ShownOnce';
import { useWhen } from '../components/when';
import { SignIn } from './SignIn';
import { Security } from './account/Security';
import { Blocked, DeleteAccount, ProfileForm, YourData } from './account/Profile';
import { Calendar } from './settings/Calendar';
import { Webhooks } from './settings/Webhooks';
import { Push } from './settings/Push';

// Once the server has Web Push, each kind also says whether it goes by push.
type Preferences = Schemas['Preferences'] & { push?: Record<string, boolean> };
type Delivery = Schemas['Delivery'];
/** One select per kind: the mail choice, alone or with push (`push+off` is push only). */
type Channel = Delivery | `push+${Delivery}`;

const msgs = defineMessages({
  title: { en: 'Settings', ja: '設定' },
  contents: { en: 'Sections', ja: '項目' },
  groupAccount: { en: 'Account', ja: 'アカウント' },
  groupNotices: { en: 'Notices', ja: '通知' },
  groupPlay: { en: 'Play', ja: 'プレイ' },
  groupTools: { en: 'Bots and tools', ja: 'ボットとツール' },
  groupData: { en: 'Your data', ja: 'データ' },
  profileLink: { en: 'Profile', ja: 'プロフィール' },
  securityLink: { en: 'Security', ja: 'セキュリティ' },
  pushLink: { en: 'Push notifications', ja: 'プッシュ通知' },
  calendarLink: { en: 'Deadline calendar', ja: '期限カレンダー' },
  webhooksLink: { en: 'Webhooks', ja: 'Webhook' },
  dataLink: { en: 'Your data', ja: 'あなたのデータ' },
  blockedLink: { en: 'Blocked players', ja: 'ブロックしたプレイヤー' },
  deleteLink: { en: 'Delete account', ja: 'アカウントの削除' },
  backToTop: { en: 'Back to the sections', ja: '項目の一覧へ戻る' },
  notifications: { en: 'Notifications', ja: '通知' },
  your_turn: { en: 'It is my turn in a game', ja: '自分の手番になったとき' },
  reminder: { en: 'My deadline in a game is near', ja: '手番の期限が近いとき' },
  invited: { en: 'Someone invited me to a game', ja: 'ゲームに招待されたとき' },
  game_started: { en: 'A game I sit in has started', ja: '参加しているゲームが始まったとき' },
  game_over: { en: 'A game I played has ended', ja: '参加したゲームが終わったとき' },
  player_left: { en: 'A player of my game deleted their account', ja: 'ゲームのプレイヤーがアカウントを削除したとき' },
  chat_mention: { en: 'Someone mentioned me (@name) in a game\'s chat', ja: 'ゲームのチャットで自分がメンション（@名前）されたとき' },
  rematch_offered: { en: 'A player of a finished game offered a rematch', ja: '終わったゲームのプレイヤーが再戦を申し込んだとき' },
  undo_requested: {
    en: 'A player asks me to agree to taking moves back',
    ja: '手の取り消しへの同意を求められたとき',
  },
  tournament_started: { en: 'A tournament I entered has started', ja: '参加したトーナメントが始まったとき' },
  tournament_round: { en: 'My next round of a tournament is seated', ja: 'トーナメントの次のラウンドの卓が決まったとき' },
  tournament_finished: { en: 'A tournament I entered is over (final standings)', ja: '参加したトーナメントが終わったとき（最終順位）' },
  tournament_cancelled: {
    en: 'A tournament I entered or organised is cancelled (too few players)',
    ja: '参加または主催したトーナメントが中止になったとき（参加者不足）',
  },
  immediately: { en: 'Mail at once', ja: 'すぐにメール' },
  digest: { en: 'Mail in the daily digest', ja: '1日1回のまとめメール' },
  off: { en: 'Nothing', ja: '通知しない' },
  'push+off': { en: 'Push notification', ja: 'プッシュ通知' },
  'push+immediately': { en: 'Push and mail at once', ja: 'プッシュ通知とすぐにメール' },
  'push+digest': { en: 'Push and the daily mail digest', ja: 'プッシュ通知と1日1回のまとめメール' },
  alwaysEmail: {
    en: 'Mail "your turn" even while I watch the game\'s page',
    ja: 'ゲームのページを見ている間も「あなたの手番」メールを送る',
  },
  saved: { en: 'Saved.', ja: '保存しました。' },
  vacation: { en: 'Vacation', ja: '休暇' },
  vacationHint: {
    en: 'While you are on vacation your clocks stand still in every game; turns that come to you start when you are back.',
    ja: '休暇中はすべてのゲームであなたの時計が止まります。その間に回ってきた手番は、戻ったときから始まります。',
  },
  daysLeft: {
    en: (left: number, of: number) => `${left} of ${of} days left this year.`,
    ja: (left: number, of: number) => `今年の休暇は${of}日中、残り${left}日です。`,
  },
  onVacation: { en: (until: string) => `On vacation until ${until}.`, ja: (until: string) => `${until}まで休暇中です。` },
  days: { en: 'Days', ja: '日数' },
  startVacation: { en: 'Go on vacation now', ja: '今から休暇を取る' },
  endVacation: { en: 'End the vacation now', ja: '休暇を今すぐ終える' },
  endVacationHint: { en: 'Unused days go back to the allowance.', ja: '使わなかった日数は戻ります。' },
  tokens: { en: 'API tokens', ja: 'APIトークン' },
  tokensHint: {
    en: 'For bots and tools that play or read games for you. A token is shown once, when it is made.',
    ja: 'あなたの代わりにゲームを読んだりプレイしたりするボットやツール用です。トークンは作成時に一度だけ表示されます。',
  },
  tokenName: { en: 'Name', ja: '名前' },
  scopes: { en: 'May', ja: '権限' },
  'game:read': { en: 'read games (game:read)', ja: 'ゲームを読む（game:read）' },
  'game:play': { en: 'play moves (game:play)', ja: '手を指す（game:play）' },
  webhooks: { en: 'manage my webhooks (webhooks)', ja: 'Webhook を管理する（webhooks）' },
  expires: { en: 'Expires after (days, empty = never)', ja: '有効期間（日、空欄 = 無期限）' },
  create: { en: 'Create token', ja: 'トークンを作成' },
  shownOnce: {
    en: 'Your new token. Copy it now: it will not be shown again.',
    ja: '新しいトークンです。今コピーしてください。二度と表示されません。',
  },
  noTokens: { en: 'No tokens.', ja: 'トークンはありません。' },
  created: { en: 'created', ja: '作成' },
  lastUsed: { en: 'last used', ja: '最終使用' },
  never: { en: 'never', ja: 'なし' },
  expiresAt: { en: 'expires', ja: '期限' },
  revoke: { en: 'Revoke', ja: '無効にする' },
  reallyRevoke: { en: (n: string) => `Revoke "${n}"? It stops working at once.`, ja: (n: string) => `「${n}」を無効にしますか？すぐに使えなくなります。` },
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

const DELIVERIES: Delivery[] = ['immediately', 'digest', 'off'];
const CHANNELS: Channel[] = ['push+immediately', 'push+digest', 'push+off', 'immediately', 'digest', 'off'];

/** The kinds of notice, as the server lists them (new kinds appear without a change here). */
function kindsOf(prefs: Preferences): string[] {
  return Object.keys(prefs).filter((key) => key !== 'always_email' && key !== 'push');
}

/** A kind's words; a kind this page does not know yet shows its name. */
function kindLabel(m: Record<string, unknown>, kind: string): string {
  const words = m[kind];
  return typeof words === 'string' ? words : kind;
}

function channelOf(prefs: Preferences, kind: string): Channel {
  const mail = (prefs as unknown as Record<string, Delivery>)[kind] ?? 'off';
  return prefs.push?.[kind] ? `push+${mail}` : mail;
}

/** The change that sets `kind` to `channel`: its mail choice and, with push, its push choice. */
function channelChange(prefs: Preferences, kind: string, channel: Channel): Schemas['PreferencesUpdate'] {
  const mail = channel.replace('push+', '') as Delivery;
  const change: Record<string, unknown> = { [kind]: mail };
  if (prefs.push) change.push = { ...prefs.push, [kind]: channel.startsWith('push+') };
  return change as Schemas['PreferencesUpdate'];
}

function Notifications() {
  const m = useMessages(msgs);
  const [prefs, setPrefs] = useState<Preferences | null>(null);
  const [saved, setSaved] = useState(false);
  const error = useError();
  useEffect(() => {
    void ok(api.GET('/api/v1/me/notifications')).then(setPrefs).catch(error.fail);
  }, []);
  const save = async (change: Schemas['PreferencesUpdate']) => {
    setSaved(false);
    error.clear();
    // Shown at once (a controlled checkbox would otherwise spring back until the answer
    // comes); put back as it was if the server refuses.
    const before = prefs;
    if (before) setPrefs({ ...before, ...(change as Partial<Preferences>) });
    try {
      setPrefs(await ok(api.PUT('/api/v1/me/notifications', { body: change })));
      setSaved(true);
    } catch (err) {
      setPrefs(before);
      error.fail(err);
    }
  };
  return (
    <section aria-labelledby="notif-title">
      <h2 id="notif-title">{m.notifications}</h2>
      {prefs && (
        <form onSubmit={(e) => e.preventDefault()} data-testid="notifications">
          {kindsOf(prefs).map((kind) => (
            <label key={kind}>
              {kindLabel(m, kind)}
              <select value={channelOf(prefs, kind)} onChange={(e) => void save(channelChange(prefs, kind, e.currentTarget.value as Channel))}>
                {(prefs.push ? CHANNELS : DELIVERIES).map((c) => (
                  <option key={c} value={c}>
                    {m[c]}
                  </option>
                ))}
              </select>
            </label>
          ))}
          <label>
            <input type="checkbox" checked={prefs.always_email} onChange={(e) => void save({ always_email: e.currentTarget.checked })} />{' '}
            {m.alwaysEmail}
          </label>
        </form>
      )}
      <p aria-live="polite" class="ok">
        {saved ? m.saved : ''}
      </p>
      {error.line}
    </section>
  );
}

function Vacation() {
  const m = useMessages(msgs);
  const when = useWhen();
  const [vacation, setVacation] = useState<Schemas['Vacation'] | null>(null);
  const [days, setDays] = useState(7);
  const error = useError();
  const reload = () => ok(api.GET('/api/v1/me/vacation')).then(setVacation);
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
  const left = vacation ? Math.floor(vacation.days_left * 10) / 10 : 0;
  return (
    <section aria-labelledby="vacation-title" data-testid="vacation">
      <h2 id="vacation-title">{m.vacation}</h2>
      <p class="hint">{m.vacationHint}</p>
      {vacation && (
        <>
          <p aria-live="polite">
            {vacation.on_vacation && vacation.until ? `${m.onVacation(when(vacation.until))} ` : ''}
            {m.daysLeft(left, vacation.days_per_year)}
          </p>
          {vacation.on_vacation ? (
            <p>
              <button type="button" onClick={() => void call(() => ok(api.DELETE('/api/v1/me/vacation')))}>
                {m.endVacation}
              </button>{' '}
              <span class="hint">{m.endVacationHint}</span>
            </p>
          ) : (
            <form
              onSubmit={(e) => {
                e.preventDefault();
                void call(() => ok(api.POST('/api/v1/me/vacation', { body: { days } })));
              }}
            >
              <label>
                {m.days}
                <span class="row">
                  <input type="number" min={1} max={Math.max(1, Math.floor(vacation.days_left))} value={days} onInput={(e) => setDays(Number(e.currentTarget.value))} />
                  <button type="submit">{m.startVacation}</button>
                </span>
              </label>
            </form>
          )}
        </>
      )}
      {error.line}
    </section>
  );
}

function Tokens() {
  const m = useMessages(msgs);
  const [tokens, setTokens] = useState<Schemas['ApiTokenInfo'][] | null>(null);
  const [created, setCreated] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Schemas['CreateTokenRequest']['scopes']>(['game:read', 'game:play']);
  const [expires, setExpires] = useState('');
  const error = useError();
  const reload = () => ok(api.GET('/api/v1/me/tokens')).then((list) => setTokens(list.items));
  useEffect(() => {
    void reload().catch(error.fail);
  }, []);
  const create = async (e: Event) => {
    e.preventDefault();
    error.clear();
    try {
      const made = await ok(
        api.POST('/api/v1/me/tokens', {
          body: { name: name.trim(), scopes, expires_in_days: expires ? Number(expires) : null },
        }),
      );
      setCreated(made.token);
      setName('');
      await reload();
    } catch (err) {
      error.fail(err);
    }
  };
  const revoke = async (id: string) => {
    error.clear();
    try {
      await ok(api.DELETE('/api/v1/me/tokens/{token_id}', { params: { path: { token_id: id } } }));
      await reload();
    } catch (err) {
      error.fail(err);
    }
  };
  const at = useWhen();
  const when = (t: string | null | undefined) => (t ? at(t) : m.never);
  return (
    <section aria-labelledby="tokens-title">
      <h2 id="tokens-title">{m.tokens}</h2>
      <p class="hint">{m.tokensHint}</p>
      {created && (
        <ShownOnce value={created} label={m.tokens} onDone={() => setCreated(null)} testId="new-token" valueTestId="token-value">
          <p>{m.shownOnce}</p>
        </ShownOnce>
      )}
      <form onSubmit={create}>
        <label>
          {m.tokenName}
          <input value={name} required maxLength={100} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <fieldset>
          <legend>{m.scopes}</legend>
          {(['game:read', 'game:play', 'webhooks'] as const).map((scope) => (
            <label key={scope}>
              <input
                type="checkbox"
                checked={scopes.includes(scope)}
                onChange={(e) => setScopes(e.currentTarget.checked ? [...scopes, scope] : scopes.filter((s) => s !== scope))}
              />{' '}
              {m[scope]}
            </label>
          ))}
        </fieldset>
        <label>
          {m.expires}
          <input type="number" min={1} value={expires} onInput={(e) => setExpires(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={!name.trim() || scopes.length === 0}>
          {m.create}
        </button>
      </form>
      {error.line}
      {tokens && tokens.length === 0 && <p class="muted">{m.noTokens}</p>}
      {tokens && tokens.length > 0 && (
        <ul class="games" data-testid="tokens">
          {tokens.map((t) => (
            <li key={t.id} data-testid="token-row">
              <strong>{t.name}</strong> <code>{t.prefix}…</code> · {t.scopes.join(', ')}
              <div class="hint">
                {m.created} {when(t.created_at)} · {m.lastUsed} {when(t.last_used_at)}
                {t.expires_at ? ` · ${m.expiresAt} ${when(t.expires_at)}` : ''}
              </div>
              <ConfirmButton question={m.reallyRevoke(t.name)} onConfirm={() => void revoke(t.id)}>
                {m.revoke}
              </ConfirmButton>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The sections in their groups: each by the id of its heading. */
function useGroups() {
  const m = useMessages(msgs);
  return [
    { title: m.groupAccount, sections: [['profile-title', m.profileLink], ['security-title', m.securityLink]] },
    {
      title: m.groupNotices,
      sections: [
        ['notif-title', m.notifications],
        ['push-title', m.pushLink],
        ['calendar-title', m.calendarLink],
      ],
    },
    { title: m.groupPlay, sections: [['vacation-title', m.vacation]] },
    { title: m.groupTools, sections: [['tokens-title', m.tokens], ['webhooks-title', m.webhooksLink]] },
    {
      title: m.groupData,
      sections: [
        ['data-title', m.dataLink],
        ['blocked-title', m.blockedLink],
        ['delete-title', m.deleteLink],
      ],
    },
  ] as { title: string; sections: [string, string][] }[];
}

/** Moves to a section: its heading scrolled into view and focused (the page routes links, so
 * an in-page link is followed here). */
function jump(e: MouseEvent, id: string) {
  const target = document.getElementById(id);
  if (!target) return;
  e.preventDefault();
  if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
  target.scrollIntoView({ block: 'start' });
  target.focus({ preventScroll: true });
}

function Contents() {
  const m = useMessages(msgs);
  const groups = useGroups();
  return (
    <nav class="settings-toc" aria-labelledby="settings-toc-title" id="settings-toc" data-testid="settings-toc">
      <h2 id="settings-toc-title" class="visually-hidden">
        {m.contents}
      </h2>
      {groups.map((g, i) => (
        <div key={g.title}>
          <p class="settings-toc-group" id={`settings-group-${i}`}>
            {g.title}
          </p>
          <ul aria-labelledby={`settings-group-${i}`}>
            {g.sections.map(([id, name]) => (
              <li key={id}>
                <a href={`#${id}`} onClick={(e) => jump(e, id)}>
                  {name}
                </a>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </nav>
  );
}

/** On a phone, after a section: back to the list of sections. */
function BackToTop() {
  const m = useMessages(msgs);
  return (
    <a class="back-to-top" href="#settings-toc" onClick={(e) => jump(e, 'settings-toc')}>
      {m.backToTop}
    </a>
  );
}

export function Settings() {
  const m = useMessages(msgs);
  const { user } = useSession();
  useEffect(() => {
    document.title = 'Kontor';
  }, []);
  if (user === undefined) return null;
  if (user === null) return <SignIn />;
  const sections = [ProfileForm, Security, Notifications, Push, Calendar, Vacation, Tokens, Webhooks, YourData, Blocked, DeleteAccount];
  return (
    <div class="settings">
      <h1>{m.title}</h1>
      <Contents />
      <div class="settings-sections">
        {sections.map((Section, i) => (
          <div key={i}>
            <Section />
            <BackToTop />
          </div>
        ))}
      </div>
    </div>
  );
}
