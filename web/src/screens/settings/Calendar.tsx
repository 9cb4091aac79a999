// Settings → Deadline calendar: make the private iCalendar feed of the games where it is my
// move (its URL shown once, with a copy button), replace it with a new URL, or revoke it.
import { useEffect, useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../../api/client';
import { errorText } from '../../api/errors';
import { defineMessages, useLang, useMessages } from '../../i18n';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ShownOnce } from '../../components/ShownOnce';
import { useWhen } from '../../components/when';

const msgs = defineMessages({
  title: { en: 'Deadline calendar', ja: '期限カレンダー' },
  hint: {
    en: 'A calendar feed of the games where it is your move, at their deadlines, for Google Calendar, Apple Calendar, Thunderbird or any calendar program that subscribes to a URL. It updates as your games move (programs fetch it every quarter of an hour or less often).',
    ja: 'あなたの手番のゲームを期限の時刻に並べたカレンダーのフィードです。Google カレンダー、Apple カレンダー、Thunderbird など、URL を購読できるカレンダーで使えます。ゲームが進むと更新されます（カレンダー側の取得は15分ごと、またはそれより間遠です）。',
  },
  secret: {
    en: 'The URL is a secret: whoever has it sees which of your games wait for you. A password reset and signing out everywhere revoke it.',
    ja: 'URL は秘密です。知っている人は誰でも、どのゲームがあなたの手番かを見られます。パスワードのリセットと全端末のログアウトで無効になります。',
  },
  none: { en: 'You have no calendar feed.', ja: 'カレンダーのフィードはありません。' },
  exists: {
    en: (since: string) => `You have a calendar feed, made ${since}.`,
    ja: (since: string) => `カレンダーのフィードがあります（${since}に作成）。`,
  },
  create: { en: 'Make a calendar feed', ja: 'カレンダーのフィードを作る' },
  replace: { en: 'Replace with a new URL', ja: '新しい URL に取り替える' },
  reallyReplace: {
    en: 'Make a new URL? The current one stops working at once.',
    ja: '新しい URL を作りますか？今の URL はすぐに使えなくなります。',
  },
  revoke: { en: 'Revoke', ja: '無効にする' },
  reallyRevoke: {
    en: 'Revoke the calendar feed? Its URL stops working at once.',
    ja: 'カレンダーのフィードを無効にしますか？URL はすぐに使えなくなります。',
  },
  shownOnce: {
    en: 'Your feed’s URL. Copy it into your calendar program now: it will not be shown again.',
    ja: 'フィードの URL です。今カレンダーに登録してください。二度と表示されません。',
  },
  url: { en: 'Calendar feed URL', ja: 'カレンダーのフィードの URL' },
});

export function Calendar() {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const at = useWhen();
  const [status, setStatus] = useState<Schemas['CalendarFeedStatus'] | null>(null);
  const [url, setUrl] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const fail = (err: unknown) => setError(errorText(err, lang));
  const reload = () => ok(api.GET('/api/v1/me/calendar')).then(setStatus);
  useEffect(() => {
    void reload().catch(fail);
  }, []);
  const create = async () => {
    setError(null);
    try {
      const made = await ok(api.POST('/api/v1/me/calendar'));
      setUrl(made.url);
      await reload();
    } catch (err) {
      fail(err);
    }
  };
  const revoke = async () => {
    setError(null);
    try {
      await ok(api.DELETE('/api/v1/me/calendar'));
      setUrl(null);
      await reload();
    } catch (err) {
      fail(err);
    }
  };
  return (
    <section aria-labelledby="calendar-title" data-testid="calendar">
      <h2 id="calendar-title">{m.title}</h2>
      <p class="hint">{m.hint}</p>
      <p class="hint">{m.secret}</p>
      {url && (
        <ShownOnce value={url} label={m.url} onDone={() => setUrl(null)} testId="calendar-new-url" valueTestId="calendar-url">
          <p>{m.shownOnce}</p>
        </ShownOnce>
      )}
      {status && !status.exists && (
        <>
          <p class="muted">{m.none}</p>
          <button type="button" onClick={() => void create()}>
            {m.create}
          </button>
        </>
      )}
      {status?.exists && (
        <>
          <p data-testid="calendar-exists">{m.exists(status.created_at ? at(status.created_at) : '')}</p>
          <span class="row">
            <ConfirmButton question={m.reallyReplace} onConfirm={() => void create()}>
              {m.replace}
            </ConfirmButton>
            <ConfirmButton question={m.reallyRevoke} onConfirm={() => void revoke()}>
              {m.revoke}
            </ConfirmButton>
          </span>
        </>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
