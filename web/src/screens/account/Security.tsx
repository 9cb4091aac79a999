// Settings → Security: the address (verified or not, a change waiting), resending the link,
// changing the address and the password, and the list of logins with revoking.
import { useEffect, useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../../api/client';
import { errorText } from '../../api/errors';
import { count, defineMessages, useLang, useMessages } from '../../i18n';
import { ConfirmButton } from '../../components/ConfirmButton';
import { useWhen } from '../../components/when';

const msgs = defineMessages({
  title: { en: 'Security', ja: 'セキュリティ' },
  address: { en: 'Email address', ja: 'メールアドレス' },
  verified: { en: 'verified', ja: '確認済み' },
  unverified: {
    en: 'not verified yet: game mail is not sent to it until you use the link in the mail',
    ja: '未確認：メールのリンクを使うまで、ゲームのメールは送られません',
  },
  pending: {
    en: (email: string) => `Changing to ${email}: use the link mailed there.`,
    ja: (email: string) => `${email} に変更中です。そのアドレスに送ったリンクを使ってください。`,
  },
  resend: { en: 'Mail the link again', ja: 'リンクを再送する' },
  resent: { en: (email: string) => `A new link is on its way to ${email}.`, ja: (email: string) => `${email} に新しいリンクを送りました。` },
  changeEmail: { en: 'Change the address', ja: 'メールアドレスを変更' },
  newEmail: { en: 'New email address', ja: '新しいメールアドレス' },
  password: { en: 'Current password', ja: '現在のパスワード' },
  newPassword: { en: 'New password', ja: '新しいパスワード' },
  changePassword: { en: 'Change the password', ja: 'パスワードを変更' },
  passwordChanged: {
    en: (n: number) => `Changed. ${count(n, 'other sign-in')} ended.`,
    ja: (n: number) => `変更しました。ほかのログイン${n}件を終了しました。`,
  },
  emailPending: {
    en: (email: string) => `A link is on its way to ${email}; the change takes effect when you use it.`,
    ja: (email: string) => `${email} にリンクを送りました。リンクを使うと変更が有効になります。`,
  },
  sessions: { en: 'Signed in', ja: 'ログイン中の端末' },
  thisDevice: { en: 'this device', ja: 'この端末' },
  unknownClient: { en: 'unknown client', ja: '不明なクライアント' },
  since: { en: 'since', ja: '開始' },
  lastUsed: { en: 'last used', ja: '最終使用' },
  signOut: { en: 'Sign out', ja: 'ログアウトさせる' },
  reallySignOut: { en: 'End this sign-in?', ja: 'このログインを終了しますか？' },
  signOutOthers: { en: 'Sign out everywhere else', ja: 'ほかの端末をすべてログアウト' },
  reallySignOutOthers: {
    en: 'End every other sign-in? Your calendar feed is revoked too.',
    ja: 'ほかのログインをすべて終了しますか？カレンダーのフィードも無効になります。',
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

function Address() {
  const m = useMessages(msgs);
  const [me, setMe] = useState<Schemas['UserProfile'] | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const error = useError();
  // The resend's refusal shows beside its button, not under the form for a new address.
  const resendError = useError();
  const load = () => void ok(api.GET('/api/v1/me')).then(setMe).catch(error.fail);
  useEffect(load, []);
  const resend = async () => {
    error.clear();
    resendError.clear();
    setNote(null);
    try {
      const sent = await ok(api.POST('/api/v1/me/email/verification'));
      setNote(m.resent(sent.sent_to));
    } catch (err) {
      resendError.fail(err);
    }
  };
  const change = async (e: Event) => {
    e.preventDefault();
    error.clear();
    resendError.clear();
    setNote(null);
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    try {
      const pending = await ok(
        api.POST('/api/v1/me/email', {
          body: { password: String(data.get('password')), email: String(data.get('email')) },
        }),
      );
      form.reset();
      setNote(m.emailPending(pending.pending_email));
      load();
    } catch (err) {
      error.fail(err);
    }
  };
  if (!me) return error.line;
  return (
    <div data-testid="address">
      <h3>{m.address}</h3>
      <p>
        <strong>{me.email}</strong> · {me.email_verified ? m.verified : m.unverified}
      </p>
      {me.pending_email && <p>{m.pending(me.pending_email)}</p>}
      {(!me.email_verified || me.pending_email) && (
        <button type="button" onClick={() => void resend()}>
          {m.resend}
        </button>
      )}
      {resendError.line}
      {note && <p role="status">{note}</p>}
      <form onSubmit={(e) => void change(e)}>
        <label>
          {m.newEmail}
          <input name="email" type="email" autocomplete="email" required />
        </label>
        <label>
          {m.password}
          <input name="password" type="password" autocomplete="current-password" required />
        </label>
        <button type="submit">{m.changeEmail}</button>
      </form>
      {error.line}
    </div>
  );
}

function Password({ onChanged }: { onChanged: () => void }) {
  const m = useMessages(msgs);
  const [note, setNote] = useState<string | null>(null);
  const error = useError();
  const change = async (e: Event) => {
    e.preventDefault();
    error.clear();
    setNote(null);
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    try {
      const done = await ok(
        api.POST('/api/v1/me/password', {
          body: {
            current_password: String(data.get('current_password')),
            new_password: String(data.get('new_password')),
          },
        }),
      );
      form.reset();
      setNote(m.passwordChanged(done.revoked.sessions));
      // The other sign-ins are over: the list shows it.
      onChanged();
    } catch (err) {
      error.fail(err);
    }
  };
  return (
    <form onSubmit={(e) => void change(e)} data-testid="password">
      <h3>{m.changePassword}</h3>
      <label>
        {m.password}
        <input name="current_password" type="password" autocomplete="current-password" required />
      </label>
      <label>
        {m.newPassword}
        <input name="new_password" type="password" autocomplete="new-password" required minLength={8} />
      </label>
      <button type="submit">{m.changePassword}</button>
      {note && <p role="status">{note}</p>}
      {error.line}
    </form>
  );
}

/** The sign-ins; `reloads` counts the changes made elsewhere that end some of them. */
function Sessions({ reloads }: { reloads: number }) {
  const m = useMessages(msgs);
  const when = useWhen();
  const [items, setItems] = useState<Schemas['SessionInfo'][] | null>(null);
  const error = useError();
  const load = () =>
    void ok(api.GET('/api/v1/me/sessions'))
      .then((list) => setItems(list.items))
      .catch(error.fail);
  useEffect(load, [reloads]);
  const revoke = async (id: string) => {
    error.clear();
    try {
      await ok(api.DELETE('/api/v1/me/sessions/{session_id}', { params: { path: { session_id: id } } }));
      load();
    } catch (err) {
      error.fail(err);
    }
  };
  const revokeOthers = async () => {
    error.clear();
    try {
      await ok(api.DELETE('/api/v1/me/sessions'));
      load();
    } catch (err) {
      error.fail(err);
    }
  };
  return (
    <div>
      <h3>{m.sessions}</h3>
      {items && (
        <ul class="games" data-testid="sessions">
          {items.map((s) => (
            <li key={s.id} data-testid="session-row">
              <strong>{s.client ?? m.unknownClient}</strong>
              {s.current && ` (${m.thisDevice})`}
              <div class="hint">
                {m.since} {when(s.created_at)} · {m.lastUsed} {when(s.last_used_at)}
              </div>
              {!s.current && (
                <ConfirmButton question={m.reallySignOut} onConfirm={() => void revoke(s.id)}>
                  {m.signOut}
                </ConfirmButton>
              )}
            </li>
          ))}
        </ul>
      )}
      {items && items.some((s) => !s.current) && (
        <ConfirmButton question={m.reallySignOutOthers} onConfirm={() => void revokeOthers()}>
          {m.signOutOthers}
        </ConfirmButton>
      )}
      {error.line}
    </div>
  );
}

export function Security() {
  const m = useMessages(msgs);
  const [ended, setEnded] = useState(0);
  return (
    <section aria-labelledby="security-title">
      <h2 id="security-title">{m.title}</h2>
      <Address />
      <Password onChanged={() => setEnded((n) => n + 1)} />
      <Sessions reloads={ended} />
    </section>
  );
}
