// The moderators' side of the chat, for admins only (the page knows from `/me`'s `admin`):
// the form that hides one message (a one-line reason, required), and the panel of open
// reports across every game, where a report's message is hidden or the report dismissed
// (an optional reason). The server checks the role on every call; the page only offers.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api/client';
import { errorText, type CodeMessages } from '../api/errors';
import { defineMessages, useLang, useMessages } from '../i18n';
import { useWhen } from '../components/when';

type ChatMessage = Schemas['ChatMessage'];
type Report = Schemas['ReportView'];

const MAX_REASON = 500;

const msgs = defineMessages({
  hideTitle: { en: (who: string) => `Hide the message of ${who}`, ja: (who: string) => `${who}のメッセージを非表示にする` },
  hideReason: { en: 'Why (one line, kept for the record)', ja: '理由（1行、記録に残ります）' },
  hideSubmit: { en: 'Hide the message', ja: 'メッセージを非表示にする' },
  dismiss: { en: 'Dismiss the report', ja: '通報を却下' },
  dismissReason: { en: 'Why dismissed (optional)', ja: '却下の理由（任意）' },
  cancel: { en: 'Cancel', ja: 'キャンセル' },
  reportsTitle: { en: 'Moderation: open reports', ja: 'モデレーション：未対応の通報' },
  loading: { en: 'Loading…', ja: '読み込み中…' },
  none: { en: 'No open reports.', ja: '未対応の通報はありません。' },
  reload: { en: 'Reload the reports', ja: '通報を再読み込み' },
  reportOf: {
    en: (reporter: string, reason: string, author: string) => `${reporter} reported ${author}'s message (${reason})`,
    ja: (reporter: string, reason: string, author: string) => `${reporter}が${author}のメッセージを通報（${reason}）`,
  },
  note: { en: 'Note:', ja: 'メモ：' },
  inGame: { en: 'In the game', ja: 'ゲーム' },
  hiddenAlready: { en: '(already hidden)', ja: '（非表示済み）' },
  done: {
    en: (what: string) => (what === 'hidden' ? 'The message is hidden; the report is resolved.' : 'The report is dismissed.'),
    ja: (what: string) => (what === 'hidden' ? 'メッセージを非表示にし、通報は対応済みになりました。' : '通報を却下しました。'),
  },
  reasons: {
    en: (r: string) => ({ spam: 'spam', abuse: 'abuse or insults', cheating: 'cheating', other: 'something else' })[r] ?? r,
    ja: (r: string) => ({ spam: 'スパム', abuse: '暴言・嫌がらせ', cheating: '不正行為', other: 'その他' })[r] ?? r,
  },
});

/** The moderators' refusals in Japanese too (English shows the server's own detail). */
const MOD_CODES: CodeMessages = {
  admin_required: { en: 'Only an admin may do this.', ja: '管理者だけが行えます。' },
  chat_message_not_found: { en: 'There is no such message.', ja: 'そのメッセージはありません。' },
  chat_report_not_found: { en: 'There is no such report.', ja: 'その通報はありません。' },
};

/** Hides `message` with a reason; `onDone` gets the message as admins see it. */
export function HideForm(props: { message: ChatMessage; who: string; onDone: (hidden: ChatMessage) => void; onCancel: () => void }) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const first = useRef<HTMLInputElement>(null);
  // Focused as it is drawn, so what is typed at once goes into it.
  useLayoutEffect(() => first.current?.focus(), []);
  const id = `hide-${props.message.id}`;
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      props.onDone(
        await ok(
          api.POST('/api/v1/admin/chat/messages/{message_id}/hide', {
            params: { path: { message_id: props.message.id } },
            body: { reason: reason.trim() },
          }),
        ),
      );
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="chat-report" onSubmit={submit} aria-label={m.hideTitle(props.who)} data-testid="chat-hide">
      <label for={`${id}-reason`}>{m.hideReason}</label>
      <input
        id={`${id}-reason`}
        ref={first}
        type="text"
        required
        maxLength={MAX_REASON}
        value={reason}
        onInput={(e) => setReason(e.currentTarget.value)}
        onKeyDown={(e) => e.key === 'Escape' && props.onCancel()}
      />
      {error !== null && (
        <p class="error" role="alert">
          {errorText(error, lang, MOD_CODES)}
        </p>
      )}
      <div class="chat-report-buttons">
        <button type="submit" disabled={busy || reason.trim() === ''}>
          {m.hideSubmit}
        </button>{' '}
        <button type="button" class="secondary" onClick={props.onCancel}>
          {m.cancel}
        </button>
      </div>
    </form>
  );
}

/**
 * The open reports of every game, the oldest first, for an admin: each with the reported
 * message's whole text, who reported it and why; hide the message or dismiss the report.
 * Read when opened (a disclosure), and again on demand.
 */
export function ReportsPanel(props: { onHidden: (hidden: ChatMessage) => void }) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const when = useWhen();
  const [open, setOpen] = useState(false);
  const [reports, setReports] = useState<Report[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  const load = async () => {
    setError(null);
    try {
      setReports((await ok(api.GET('/api/v1/admin/chat/reports', { params: { query: { status: 'open' } } }))).items);
    } catch (err) {
      setError(err);
    }
  };
  useEffect(() => {
    if (open) void load();
  }, [open]);
  const resolved = (what: string) => {
    setDone(m.done(what));
    void load();
  };
  return (
    <details
      class="chat-moderation"
      data-testid="chat-moderation"
      onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}
    >
      <summary>{m.reportsTitle}</summary>
      {done !== null && (
        <p class="ok" role="status">
          {done}
        </p>
      )}
      {error !== null && (
        <p class="error" role="alert">
          {errorText(error, lang, MOD_CODES)}
        </p>
      )}
      {reports === null ? (
        error === null && <p class="muted">{m.loading}</p>
      ) : reports.length === 0 ? (
        <p class="muted" data-testid="no-reports">
          {m.none}
        </p>
      ) : (
        <ul class="chat-reports">
          {reports.map((r) => (
            <ReportItem
              key={r.id}
              report={r}
              when={when}
              onHidden={(hidden) => {
                props.onHidden(hidden);
                resolved('hidden');
              }}
              onDismissed={() => resolved('dismissed')}
            />
          ))}
        </ul>
      )}
      <button type="button" class="secondary" onClick={() => void load()}>
        {m.reload}
      </button>
    </details>
  );
}

function ReportItem(props: {
  report: Report;
  when: (at: string) => string;
  onHidden: (hidden: ChatMessage) => void;
  onDismissed: () => void;
}) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const r = props.report;
  const author = r.message.author.username;
  const [hiding, setHiding] = useState(false);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const id = `dismiss-${r.id}`;
  const dismiss = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await ok(
        api.POST('/api/v1/admin/chat/reports/{report_id}/dismiss', {
          params: { path: { report_id: r.id } },
          body: { reason: reason.trim() === '' ? null : reason.trim() },
        }),
      );
      props.onDismissed();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <li class="chat-report-item" data-testid="chat-report-item" data-report-id={r.id} data-message-id={r.message.id}>
      <p>
        <strong>{m.reportOf(r.reporter, m.reasons(r.reason), author)}</strong>{' '}
        <time class="muted" dateTime={r.created_at}>
          {props.when(r.created_at)}
        </time>{' '}
        <a href={`/games/${r.message.game_id}`}>{m.inGame}</a>
      </p>
      <blockquote class="chat-text">
        {r.message.text ?? ''} {r.message.hidden && <em>{m.hiddenAlready}</em>}
      </blockquote>
      {r.note && (
        <p>
          {m.note} {r.note}
        </p>
      )}
      {hiding ? (
        <HideForm message={r.message} who={author} onDone={props.onHidden} onCancel={() => setHiding(false)} />
      ) : (
        <form class="chat-report" onSubmit={dismiss} aria-label={m.dismiss}>
          <label for={`${id}-reason`}>{m.dismissReason}</label>
          <input id={`${id}-reason`} type="text" maxLength={MAX_REASON} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
          {error !== null && (
            <p class="error" role="alert">
              {errorText(error, lang, MOD_CODES)}
            </p>
          )}
          <div class="chat-report-buttons">
            <button type="submit" disabled={busy}>
              {m.dismiss}
            </button>{' '}
            {!r.message.hidden && (
              <button type="button" class="secondary" onClick={() => setHiding(true)}>
                {m.hideSubmit}
              </button>
            )}
          </div>
        </form>
      )}
    </li>
  );
}
