// Settings → Webhooks: endpoints that receive my notices as signed requests (Standard
// Webhooks), for bots and integrations. Add one (its secret shown once), choose its events and
// body format, switch it off and on, rotate its secret, send a test, and read its delivery
// log with a redelivery per line.
import { useEffect, useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../../api/client';
import { errorText } from '../../api/errors';
import { defineMessages, useLang, useMessages } from '../../i18n';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ShownOnce } from '../../components/ShownOnce';
import { useWhen } from '../../components/when';

type Webhook = Schemas['Webhook'];
type Delivery = Schemas['WebhookDelivery'];
type Format = Schemas['WebhookFormat'];
type EventType = Schemas['NewWebhook']['event_types'][number];

const EVENTS: EventType[] = [
  'notice.your_turn',
  'notice.reminder',
  'notice.invited',
  'notice.game_started',
  'notice.game_over',
  'notice.player_left',
  'notice.chat_mention',
  'notice.rematch_offered',
  'notice.undo_requested',
  'notice.tournament_started',
  'notice.tournament_round',
  'notice.tournament_finished',
  'notice.tournament_cancelled',
];
const FORMATS: Format[] = ['standard', 'discord', 'slack'];

const msgs = defineMessages({
  title: { en: 'Webhooks', ja: 'Webhook' },
  hint: {
    en: 'Your notices sent to a URL of yours as signed HTTPS requests (Standard Webhooks), for bots and chat channels. Each endpoint has its own secret to check the signature with.',
    ja: 'あなたへの通知を、署名付きの HTTPS リクエスト（Standard Webhooks）として指定の URL に送ります。ボットやチャットのチャンネル向けです。署名の確認には各エンドポイントのシークレットを使います。',
  },
  none: { en: 'No webhook endpoints.', ja: 'Webhook のエンドポイントはありません。' },
  url: { en: 'URL (https://…)', ja: 'URL（https://…）' },
  description: { en: 'Description', ja: '説明' },
  events: { en: 'Events', ja: 'イベント' },
  format: { en: 'Body', ja: '本文の形式' },
  standard: { en: 'Standard Webhooks JSON', ja: 'Standard Webhooks の JSON' },
  discord: { en: 'Discord channel', ja: 'Discord のチャンネル' },
  slack: { en: 'Slack channel', ja: 'Slack のチャンネル' },
  add: { en: 'Add endpoint', ja: 'エンドポイントを追加' },
  pickEvent: { en: 'Choose at least one event.', ja: 'イベントを一つ以上選んでください。' },
  secretOnce: {
    en: 'The endpoint’s signing secret. Keep it now: it will not be shown again.',
    ja: 'このエンドポイントの署名用シークレットです。今控えてください。二度と表示されません。',
  },
  previousUntil: {
    en: (at: string) => `The previous secret still signs until ${at}.`,
    ja: (at: string) => `以前のシークレットも${at}まで署名に使われます。`,
  },
  secret: { en: 'Signing secret', ja: '署名用シークレット' },
  enabled: { en: 'On', ja: '有効' },
  disabledBy: {
    en: (why: string) => `Switched off by the server (${why === 'gone' ? 'the receiver answered 410 Gone' : 'its deliveries kept failing'}).`,
    ja: (why: string) => `サーバーが停止しました（${why === 'gone' ? '受信側が 410 Gone を返しました' : '配信の失敗が続きました'}）。`,
  },
  test: { en: 'Send a test event', ja: 'テストイベントを送る' },
  testQueued: { en: 'Test event queued.', ja: 'テストイベントを送信待ちにしました。' },
  rotate: { en: 'Rotate secret', ja: 'シークレットを更新' },
  reallyRotate: {
    en: 'Make a new secret? The old one keeps signing for 24 hours.',
    ja: '新しいシークレットを作りますか？古いものも24時間は署名に使われます。',
  },
  remove: { en: 'Delete', ja: '削除' },
  reallyRemove: { en: 'Delete this endpoint and its log?', ja: 'このエンドポイントとその記録を削除しますか？' },
  log: { en: 'Delivery log', ja: '配信の記録' },
  hideLog: { en: 'Hide the log', ja: '記録を閉じる' },
  noDeliveries: { en: 'Nothing delivered yet.', ja: 'まだ配信はありません。' },
  attempts: { en: (n: number) => `${n} attempt${n === 1 ? '' : 's'}`, ja: (n: number) => `${n}回試行` },
  redeliver: { en: 'Redeliver', ja: '再送' },
  status: {
    en: (s: string) => ({ pending: 'waiting to be sent', sending: 'being sent', succeeded: 'delivered', failed: 'failed' })[s] ?? s,
    ja: (s: string) => ({ pending: '送信待ち', sending: '送信中', succeeded: '配信済み', failed: '失敗' })[s] ?? s,
  },
  lastAnswer: { en: (code: number) => `HTTP ${code}`, ja: (code: number) => `HTTP ${code}` },
  previousAnswer: { en: (code: number) => `the previous try: HTTP ${code}`, ja: (code: number) => `前回：HTTP ${code}` },
  more: { en: 'Older deliveries', ja: 'さらに古い配信' },
});

function Log({ hook, fail }: { hook: Webhook; fail: (err: unknown) => void }) {
  const m = useMessages(msgs);
  const at = useWhen();
  const [items, setItems] = useState<Delivery[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const load = async (after?: string) => {
    const page = await ok(
      api.GET('/api/v1/me/webhooks/{id}/deliveries', { params: { path: { id: hook.id }, query: { after } } }),
    );
    setItems((before) => (after && before ? [...before, ...page.items] : page.items));
    setNext(page.next ?? null);
  };
  useEffect(() => {
    void load().catch(fail);
  }, [hook.id]);
  // While a line waits or is being sent, the log is read again now and then (every 2 s, for
  // at most 2 minutes after the log was opened or a delivery redelivered), so the line shows
  // how it went without a reload.
  const [watchUntil, setWatchUntil] = useState(() => Date.now() + 120_000);
  const waiting = (items ?? []).some((d) => d.status === 'pending' || d.status === 'sending');
  useEffect(() => {
    if (!waiting || watchUntil === 0) return;
    const timer = setInterval(() => {
      if (Date.now() > watchUntil) clearInterval(timer);
      else void load().catch(() => {});
    }, 2000);
    return () => clearInterval(timer);
  }, [waiting, watchUntil]);
  const redeliver = async (delivery: Delivery) => {
    try {
      await ok(
        api.POST('/api/v1/me/webhooks/{id}/deliveries/{delivery_id}/redeliver', {
          params: { path: { id: hook.id, delivery_id: delivery.id } },
        }),
      );
      await load();
      setWatchUntil(Date.now() + 120_000);
    } catch (err) {
      fail(err);
    }
  };
  if (!items) return null;
  if (items.length === 0) return <p class="muted">{m.noDeliveries}</p>;
  return (
    <>
      <ul class="webhook-log" data-testid="webhook-log">
        {items.map((delivery) => (
          <li key={delivery.id} data-status={delivery.status}>
            <code>{delivery.event_type}</code> · <strong>{m.status(delivery.status)}</strong> · {m.attempts(delivery.attempts)}
            {delivery.last_status != null &&
              ` · ${delivery.status === 'pending' && delivery.attempts === 0 ? m.previousAnswer(delivery.last_status) : m.lastAnswer(delivery.last_status)}`}
            {delivery.last_error && <span class="muted"> · {delivery.last_error}</span>} ·{' '}
            <span class="muted">{at(delivery.created_at)}</span>{' '}
            {delivery.status !== 'pending' && delivery.status !== 'sending' && (
              <button type="button" class="secondary" onClick={() => void redeliver(delivery)}>
                {m.redeliver}
              </button>
            )}
          </li>
        ))}
      </ul>
      {next && (
        <button type="button" class="secondary" onClick={() => void load(next).catch(fail)}>
          {m.more}
        </button>
      )}
    </>
  );
}

function Endpoint({ hook, onChanged, fail }: { hook: Webhook; onChanged: () => Promise<void>; fail: (err: unknown) => void }) {
  const m = useMessages(msgs);
  const at = useWhen();
  const [showLog, setShowLog] = useState(false);
  const [secret, setSecret] = useState<{ secret: string; until: string } | null>(null);
  const [queued, setQueued] = useState(false);
  const path = { params: { path: { id: hook.id } } };
  const act = async (action: () => Promise<unknown>) => {
    try {
      await action();
      await onChanged();
    } catch (err) {
      fail(err);
    }
  };
  return (
    <li data-testid="webhook">
      <p>
        <code>{hook.url}</code> {hook.description && <span>— {hook.description}</span>} <span class="muted">· {m[hook.format]}</span>
      </p>
      <p class="muted">{hook.event_types.join(', ')}</p>
      {hook.disabled_reason && <p class="error">{m.disabledBy(hook.disabled_reason)}</p>}
      <span class="row">
        <label>
          <input
            type="checkbox"
            checked={hook.enabled}
            onChange={(e) => void act(() => ok(api.PATCH('/api/v1/me/webhooks/{id}', { ...path, body: { enabled: e.currentTarget.checked } })))}
          />{' '}
          {m.enabled}
        </label>
        <button
          type="button"
          onClick={() =>
            void act(async () => {
              await ok(api.POST('/api/v1/me/webhooks/{id}/test', path));
              setQueued(true);
            })
          }
        >
          {m.test}
        </button>
        <ConfirmButton
          question={m.reallyRotate}
          onConfirm={() =>
            void act(async () => {
              const rotated = await ok(api.POST('/api/v1/me/webhooks/{id}/rotate', path));
              setSecret({ secret: rotated.secret, until: rotated.previous_expires_at });
            })
          }
        >
          {m.rotate}
        </ConfirmButton>
        <ConfirmButton question={m.reallyRemove} onConfirm={() => void act(() => ok(api.DELETE('/api/v1/me/webhooks/{id}', path)))}>
          {m.remove}
        </ConfirmButton>
        <button type="button" class="secondary" aria-expanded={showLog} onClick={() => setShowLog(!showLog)}>
          {showLog ? m.hideLog : m.log}
        </button>
      </span>
      <p aria-live="polite" class="ok">
        {queued ? m.testQueued : ''}
      </p>
      {secret && (
        <ShownOnce value={secret.secret} label={m.secret} onDone={() => setSecret(null)} testId="webhook-secret">
          <p>{m.secretOnce}</p>
          <p>{m.previousUntil(at(secret.until))}</p>
        </ShownOnce>
      )}
      {showLog && <Log hook={hook} fail={fail} />}
    </li>
  );
}

export function Webhooks() {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const [hooks, setHooks] = useState<Webhook[] | null>(null);
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<EventType[]>(['notice.your_turn']);
  const [format, setFormat] = useState<Format>('standard');
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const fail = (err: unknown) => setError(errorText(err, lang));
  const reload = async () => setHooks((await ok(api.GET('/api/v1/me/webhooks'))).items);
  useEffect(() => {
    void reload().catch(fail);
  }, []);
  const add = async (e: Event) => {
    e.preventDefault();
    setError(null);
    if (events.length === 0) {
      setError(m.pickEvent);
      return;
    }
    try {
      const made = await ok(
        api.POST('/api/v1/me/webhooks', { body: { url: url.trim(), description: description.trim() || undefined, event_types: events, format } }),
      );
      setSecret(made.secret);
      setUrl('');
      setDescription('');
      await reload();
    } catch (err) {
      fail(err);
    }
  };
  const toggle = (event: EventType, on: boolean) => setEvents(on ? [...events, event] : events.filter((x) => x !== event));
  return (
    <section aria-labelledby="webhooks-title" data-testid="webhooks">
      <h2 id="webhooks-title">{m.title}</h2>
      <p class="hint">{m.hint}</p>
      {secret && (
        <ShownOnce value={secret} label={m.secret} onDone={() => setSecret(null)} testId="webhook-secret">
          <p>{m.secretOnce}</p>
        </ShownOnce>
      )}
      {hooks && hooks.length === 0 && <p class="muted">{m.none}</p>}
      {hooks && hooks.length > 0 && (
        <ul class="webhooks">
          {hooks.map((hook) => (
            <Endpoint key={hook.id} hook={hook} onChanged={reload} fail={fail} />
          ))}
        </ul>
      )}
      <form onSubmit={(e) => void add(e)} data-testid="new-webhook">
        <label>
          {m.url}
          <input type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        </label>
        <label>
          {m.description}
          <input value={description} maxLength={200} onInput={(e) => setDescription(e.currentTarget.value)} />
        </label>
        <fieldset>
          <legend>{m.events}</legend>
          {EVENTS.map((event) => (
            <label key={event}>
              <input type="checkbox" checked={events.includes(event)} onChange={(e) => toggle(event, e.currentTarget.checked)} /> <code>{event}</code>
            </label>
          ))}
        </fieldset>
        <label>
          {m.format}
          <select value={format} onChange={(e) => setFormat(e.currentTarget.value as Format)}>
            {FORMATS.map((f) => (
              <option key={f} value={f}>
                {m[f]}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">{m.add}</button>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
