import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok } from '../api/client';
import { errorText } from '../api/errors';
import { defineMessages, useLang, useMessages } from '../i18n';
import { useSession } from '../session';

const msgs = defineMessages({
  signIn: { en: 'Sign in', ja: 'ログイン' },
  signUp: { en: 'Sign up', ja: '新規登録' },
  username: { en: 'Username or email address', ja: 'ユーザー名またはメールアドレス' },
  newUsername: { en: 'Username', ja: 'ユーザー名' },
  email: { en: 'Email address', ja: 'メールアドレス' },
  password: { en: 'Password', ja: 'パスワード' },
  passwordHint: {
    en: '8 characters or more, and not easy to guess.',
    ja: '8文字以上で、推測されにくいもの。',
  },
  noAccount: { en: 'No account yet?', ja: 'アカウントをお持ちでない方は' },
  haveAccount: { en: 'Already registered?', ja: '登録済みの方は' },
  forgot: { en: 'Forgot password?', ja: 'パスワードをお忘れですか？' },
  usernameCount: {
    en: (n: number, max: number) => `${n} of ${max} characters`,
    ja: (n: number, max: number) => `${max}文字中${n}文字`,
  },
  usernameFull: {
    en: (max: number) => `A username has at most ${max} characters: what you typed beyond them was not added.`,
    ja: (max: number) => `ユーザー名は${max}文字までです。それを超えて入力した文字は追加されていません。`,
  },
});

/** The server's limit on a username's length (`RegisterRequest.username`). */
const USERNAME_MAX = 32;

/**
 * The new username, with a count of its characters; text typed or pasted beyond the limit
 * (which the field does not take) is said so in a live region, not dropped silently.
 */
function NewUsername({ label }: { label: string }) {
  const m = useMessages(msgs);
  const [length, setLength] = useState(0);
  const [overflowed, setOverflowed] = useState(false);
  const beforeInput = (e: InputEvent) => {
    const input = e.currentTarget as HTMLInputElement;
    if (!e.inputType.startsWith('insert')) return;
    const replaced = (input.selectionEnd ?? 0) - (input.selectionStart ?? 0);
    const added = e.data ?? e.dataTransfer?.getData('text/plain') ?? '';
    if (input.value.length - replaced + added.length > USERNAME_MAX) setOverflowed(true);
  };
  const input = (e: Event) => {
    const value = (e.currentTarget as HTMLInputElement).value;
    setLength(value.length);
    if (value.length < USERNAME_MAX) setOverflowed(false);
  };
  // The count and the note stay out of the label: the field's name is "Username" alone.
  return (
    <div class="field">
      <label>
        {label}
        <input
          name="username"
          autocomplete="username"
          required
          minLength={3}
          maxLength={USERNAME_MAX}
          aria-describedby="username-count"
          onBeforeInput={beforeInput}
          onInput={input}
        />
      </label>
      <small id="username-count" class="hint" data-testid="username-count">
        {m.usernameCount(length, USERNAME_MAX)}
      </small>
      <small class="error" role="status" data-testid="username-full">
        {overflowed ? ` ${m.usernameFull(USERNAME_MAX)}` : ''}
      </small>
    </div>
  );
}

/** A refusal, in the language shown now (so switching it translates the message too). */
/**
 * After signing in on its own screen the lobby follows; shown in place of another screen
 * (a game's page opened from a mail, settings) that screen stays, now signed in.
 */
function useAfterSignIn() {
  const { path, route } = useLocation();
  return () => {
    if (path === '/signin' || path === '/signup') route('/');
  };
}

/** A form's submit handler around `action`, with the refusal to show and whether it is busy. */
function useSubmit(action: (form: FormData) => Promise<void>) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(null);
    try {
      await action(form);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { submit, error, busy };
}

function ErrorLine({ error }: { error: unknown }) {
  const { lang } = useLang();
  return error ? (
    <p class="error" role="alert">
      {errorText(error, lang)}
    </p>
  ) : null;
}

export function SignIn() {
  const m = useMessages(msgs);
  const { signIn } = useSession();
  const done = useAfterSignIn();
  const { submit, error, busy } = useSubmit(async (form) => {
    await signIn(String(form.get('username')), String(form.get('password')));
    done();
  });
  return (
    <section class="narrow">
      <h1>{m.signIn}</h1>
      <form onSubmit={submit}>
        <label>
          {m.username}
          <input name="username" autocomplete="username" required />
        </label>
        <label>
          {m.password}
          <input name="password" type="password" autocomplete="current-password" required />
        </label>
        <ErrorLine error={error} />
        <button type="submit" disabled={busy}>
          {m.signIn}
        </button>
      </form>
      <p>
        <a href="/reset-password">{m.forgot}</a>
      </p>
      <p>
        {m.noAccount} <a href="/signup">{m.signUp}</a>
      </p>
    </section>
  );
}

export function SignUp() {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const { signIn, reload } = useSession();
  const done = useAfterSignIn();
  const { submit, error, busy } = useSubmit(async (form) => {
    const username = String(form.get('username'));
    const password = String(form.get('password'));
    await ok(
      api.POST('/api/v1/auth/register', {
        body: { username, email: String(form.get('email')), password, language: lang },
      }),
    );
    await signIn(username, password);
    // The mails' times come in the browser's time zone until the profile says otherwise
    // (a zone the server does not know stays UTC: it can be chosen in Settings).
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (zone && zone !== 'UTC') {
      await ok(api.PUT('/api/v1/me/profile', { body: { time_zone: zone } })).catch(() => {});
      await reload();
    }
    done();
  });
  return (
    <section class="narrow">
      <h1>{m.signUp}</h1>
      <form onSubmit={submit}>
        <NewUsername label={m.newUsername} />
        <label>
          {m.email}
          <input name="email" type="email" autocomplete="email" required />
        </label>
        <label>
          {m.password}
          <input name="password" type="password" autocomplete="new-password" required minLength={8} aria-describedby="pw-hint" />
          <small id="pw-hint">{m.passwordHint}</small>
        </label>
        <ErrorLine error={error} />
        <button type="submit" disabled={busy}>
          {m.signUp}
        </button>
      </form>
      <p>
        {m.haveAccount} <a href="/signin">{m.signIn}</a>
      </p>
    </section>
  );
}
