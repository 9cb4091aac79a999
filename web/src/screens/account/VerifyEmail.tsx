// The page a verification mail links to: it sends the link's token and says what came of it.
import { useEffect, useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../../api/client';
import { errorText } from '../../api/errors';
import { defineMessages, useLang, useMessages } from '../../i18n';
import { takeLinkToken } from './linkToken';

const msgs = defineMessages({
  title: { en: 'Email address', ja: 'メールアドレス' },
  checking: { en: 'Checking the link…', ja: 'リンクを確認しています…' },
  verified: {
    en: (email: string) => `Thank you: ${email} is verified.`,
    ja: (email: string) => `${email} を確認しました。ありがとうございます。`,
  },
  changed: {
    en: (email: string) => `Your account's address is now ${email}.`,
    ja: (email: string) => `アカウントのメールアドレスを ${email} に変更しました。`,
  },
  noToken: {
    en: 'This page needs the link from the mail. Ask for a new one in Settings.',
    ja: 'このページにはメールのリンクが必要です。設定から新しいリンクを依頼できます。',
  },
  lobby: { en: 'To the lobby', ja: 'ロビーへ' },
  settings: { en: 'Settings', ja: '設定' },
});

export function VerifyEmail() {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const [result, setResult] = useState<Schemas['VerifiedEmail'] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [missing, setMissing] = useState(false);
  useEffect(() => {
    document.title = 'Kontor';
    const token = takeLinkToken();
    if (!token) {
      setMissing(true);
      return;
    }
    ok(api.POST('/api/v1/auth/verify-email', { body: { token } })).then(setResult, setError);
  }, []);
  return (
    <section class="narrow">
      <h1>{m.title}</h1>
      {!result && !error && !missing && <p>{m.checking}</p>}
      {missing && <p>{m.noToken}</p>}
      {result && (
        <p data-testid="verified">{result.changed ? m.changed(result.email) : m.verified(result.email)}</p>
      )}
      {error !== null && (
        <p class="error" role="alert">
          {errorText(error, lang)}
        </p>
      )}
      <p>
        <a href="/">{m.lobby}</a> · <a href="/settings">{m.settings}</a>
      </p>
    </section>
  );
}
