// "Forgot password": without a token, a form that asks for the link by mail; with the token
// of the mailed link, a form for the new password.
import { useEffect, useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../../api/client';
import { errorText } from '../../api/errors';
import { count, defineMessages, useLang, useMessages } from '../../i18n';
import { takeLinkToken } from './linkToken';

const msgs = defineMessages({
  title: { en: 'Forgot your password?', ja: 'パスワードをお忘れですか？' },
  newTitle: { en: 'Choose a new password', ja: '新しいパスワードを設定' },
  login: { en: 'Username or email address', ja: 'ユーザー名またはメールアドレス' },
  send: { en: 'Mail me a link', ja: 'リンクをメールで送る' },
  sent: {
    en: 'If an account has this username or address, a link to choose a new password is on its way to its address. It works once, for an hour.',
    ja: 'このユーザー名またはメールアドレスのアカウントがあれば、新しいパスワードを設定するリンクをそのアドレスに送りました。リンクは1時間、一度だけ使えます。',
  },
  password: { en: 'New password', ja: '新しいパスワード' },
  passwordHint: {
    en: '8 characters or more, and not easy to guess.',
    ja: '8文字以上で、推測されにくいもの。',
  },
  save: { en: 'Set the password', ja: 'パスワードを設定' },
  done: {
    en: (sessions: number, tokens: number) =>
      `Your password is set. ${count(sessions, 'sign-in')} ended and ${count(tokens, 'API token')} ${tokens === 1 ? 'was' : 'were'} revoked. Sign in with the new password.`,
    ja: (sessions: number, tokens: number) =>
      `パスワードを設定しました。${sessions}件のログインを終了し、${tokens}件のAPIトークンを無効にしました。新しいパスワードでログインしてください。`,
  },
  signIn: { en: 'Sign in', ja: 'ログイン' },
});

function useSubmit(action: (form: FormData) => Promise<void>) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await action(new FormData(e.currentTarget as HTMLFormElement));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { submit, error, busy };
}

function Forgot() {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const [sent, setSent] = useState(false);
  const { submit, error, busy } = useSubmit(async (form) => {
    await ok(api.POST('/api/v1/auth/password/forgot', { body: { login: String(form.get('login')) } }));
    setSent(true);
  });
  if (sent) return <p data-testid="reset-sent">{m.sent}</p>;
  return (
    <form onSubmit={submit}>
      <label>
        {m.login}
        <input name="login" autocomplete="username" required maxLength={254} />
      </label>
      {error !== null && (
        <p class="error" role="alert">
          {errorText(error, lang)}
        </p>
      )}
      <button type="submit" disabled={busy}>
        {m.send}
      </button>
    </form>
  );
}

function NewPassword({ token }: { token: string }) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const [done, setDone] = useState<Schemas['RevokedCounts'] | null>(null);
  const { submit, error, busy } = useSubmit(async (form) => {
    const answer = await ok(
      api.POST('/api/v1/auth/password/reset', { body: { token, password: String(form.get('password')) } }),
    );
    setDone(answer.revoked);
  });
  if (done)
    return (
      <p data-testid="reset-done">
        {m.done(done.sessions, done.api_tokens)} <a href="/signin">{m.signIn}</a>
      </p>
    );
  return (
    <form onSubmit={submit}>
      <label>
        {m.password}
        <input name="password" type="password" autocomplete="new-password" required minLength={8} aria-describedby="reset-hint" />
        <small id="reset-hint">{m.passwordHint}</small>
      </label>
      {error !== null && (
        <p class="error" role="alert">
          {errorText(error, lang)}
        </p>
      )}
      <button type="submit" disabled={busy}>
        {m.save}
      </button>
    </form>
  );
}

export function ResetPassword() {
  const m = useMessages(msgs);
  const [token, setToken] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    document.title = 'Kontor';
    setToken(takeLinkToken());
  }, []);
  if (token === undefined) return null;
  return (
    <section class="narrow">
      <h1>{token ? m.newTitle : m.title}</h1>
      {token ? <NewPassword token={token} /> : <Forgot />}
    </section>
  );
}
