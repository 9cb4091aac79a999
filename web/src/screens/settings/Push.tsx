// Push notifications on this device and the account's other devices: subscribe this browser
// (permission, the server's VAPID key, the service worker), see and remove devices, send a
// test. Which notices go by push is chosen per kind in the notifications form above.
import { useEffect, useState } from 'preact/hooks';
import { errorText } from '../../api/errors';
import {
  currentSubscription,
  deviceName,
  forgetThisDevice,
  listDevices,
  notifyThisDevice,
  PushFailure,
  removeDevice,
  testDevice,
  unsupported,
  type PushDevice,
  type TestResult,
} from '../../api/push';
import { defineMessages, useLang, useMessages } from '../../i18n';
import { ConfirmButton } from '../../components/ConfirmButton';
import { useWhen } from '../../components/when';

const msgs = defineMessages({
  title: { en: 'Push notifications', ja: 'プッシュ通知' },
  hint: {
    en: 'Notices can come to this browser or phone as push notifications, beside mail or instead of it: choose per kind above.',
    ja: '通知をメールの代わりに、またはメールと一緒に、このブラウザーやスマートフォンへプッシュ通知で受け取れます。種類ごとに上で選んでください。',
  },
  noPush: {
    en: 'This browser cannot receive push notifications. On an iPhone or iPad, add Kontor to the home screen first and open it from there.',
    ja: 'このブラウザーはプッシュ通知を受け取れません。iPhone・iPadでは、先にKontorをホーム画面に追加し、そこから開いてください。',
  },
  denied: {
    en: "Notifications are blocked for this site in the browser's settings; allow them there to use push.",
    ja: 'ブラウザーの設定でこのサイトの通知がブロックされています。プッシュ通知を使うには、そこで許可してください。',
  },
  on: { en: 'This device gets push notifications.', ja: 'このデバイスはプッシュ通知を受け取ります。' },
  off: { en: 'This device gets no push notifications.', ja: 'このデバイスはプッシュ通知を受け取りません。' },
  notify: { en: 'Notify this device', ja: 'このデバイスに通知する' },
  stop: { en: 'Stop notifying this device', ja: 'このデバイスへの通知をやめる' },
  refused: { en: 'Notifications were not allowed.', ja: '通知が許可されませんでした。' },
  unreachable: {
    en: "This browser could not reach its push service, so this device cannot be notified now. Try again later, or use mail.",
    ja: 'このブラウザーはプッシュサービスに接続できなかったため、今はこのデバイスに通知できません。時間をおいて試すか、メールをお使いください。',
  },
  browserRefused: {
    en: 'This browser refused push notifications (in a private window, for example, push is off).',
    ja: 'このブラウザーはプッシュ通知を受け付けませんでした（たとえばプライベートウィンドウではプッシュ通知は使えません）。',
  },
  browserFailed: {
    en: 'This browser could not set up push notifications for this device.',
    ja: 'このブラウザーでは、このデバイスのプッシュ通知を設定できませんでした。',
  },
  working: { en: 'Asking the browser…', ja: 'ブラウザーに問い合わせています…' },
  devices: { en: 'Devices', ja: 'デバイス' },
  noDevices: { en: 'No device gets push notifications.', ja: 'プッシュ通知を受け取るデバイスはありません。' },
  thisDevice: { en: '(this device)', ja: '（このデバイス）' },
  unnamed: { en: 'A device', ja: 'デバイス' },
  added: { en: 'added', ja: '追加' },
  test: { en: 'Send a test', ja: 'テストを送る' },
  testSent: { en: 'A test notification is on its way.', ja: 'テスト通知を送りました。' },
  testFailed: {
    en: (why: string) => `The push service did not take the test notification: ${why}`,
    ja: (why: string) => `プッシュサービスがテスト通知を受け付けませんでした：${why}`,
  },
  remove: { en: 'Remove', ja: '削除' },
  reallyRemove: { en: (n: string) => `Remove "${n}"? It gets no more notifications.`, ja: (n: string) => `「${n}」を削除しますか？通知が届かなくなります。` },
});

export function Push() {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const when = useWhen();
  const [devices, setDevices] = useState<PushDevice[] | null>(null);
  const [endpoint, setEndpoint] = useState<string | null>(null);
  const [note, setNote] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // While the browser is asked to subscribe this device (it may take seconds).
  const [asking, setAsking] = useState(false);
  const [blocked, setBlocked] = useState(unsupported);
  const reload = async () => {
    const [list, subscription] = await Promise.all([listDevices(), unsupported() === 'no_push' ? null : currentSubscription()]);
    setDevices(list);
    setEndpoint(subscription?.endpoint ?? null);
    setBlocked(unsupported());
  };
  useEffect(() => {
    void reload().catch((err: unknown) => setError(errorText(err, lang)));
  }, []);
  const act = async (work: () => Promise<string | void>) => {
    setError(null);
    setNote('');
    setBusy(true);
    try {
      setNote((await work()) ?? '');
      await reload();
    } catch (err) {
      setError(
        err instanceof PushFailure
          ? err.reason === 'unreachable'
            ? m.unreachable
            : err.reason === 'refused'
              ? m.browserRefused
              : m.browserFailed
          : errorText(err, lang),
      );
    } finally {
      setBusy(false);
    }
  };
  const testOutcome = ({ status = null, error: why = null }: TestResult) => {
    if (why !== null || status === null || status >= 300) throw new Error(m.testFailed(why ?? `HTTP ${status}`));
    return m.testSent;
  };
  const name = (d: PushDevice) => (d.user_agent ? deviceName(d.user_agent) : m.unnamed);
  const subscribed = endpoint !== null && (devices ?? []).some((d) => d.endpoint === endpoint);
  return (
    <section aria-labelledby="push-title" data-testid="push">
      <h2 id="push-title">{m.title}</h2>
      <p class="hint">{m.hint}</p>
      {blocked === 'no_push' && <p data-testid="push-state">{m.noPush}</p>}
      {blocked !== 'no_push' && devices && (
        <>
          <p data-testid="push-state" aria-live="polite">
            {blocked === 'denied' ? m.denied : subscribed ? m.on : m.off}
          </p>
          {subscribed ? (
            <button type="button" class="secondary" disabled={busy} onClick={() => void act(() => forgetThisDevice(devices))}>
              {m.stop}
            </button>
          ) : (
            blocked === null && (
              <button type="button" disabled={busy} onClick={() =>
                  void act(async () => {
                    setAsking(true);
                    try {
                      return (await notifyThisDevice()) === 'denied' ? m.refused : '';
                    } finally {
                      setAsking(false);
                    }
                  })
                }>
                {m.notify}
              </button>
            )
          )}
        </>
      )}
      <p aria-live="polite" class="ok" data-testid="push-note">
        {asking ? m.working : note}
      </p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {devices && (
        <>
          <h3>{m.devices}</h3>
          {devices.length === 0 ? (
            <p class="muted">{m.noDevices}</p>
          ) : (
            <ul class="games" data-testid="push-devices">
              {devices.map((d) => (
                <li key={d.id} data-testid="push-device">
                  <strong>{name(d)}</strong> {d.endpoint === endpoint ? m.thisDevice : ''}
                  <div class="hint">
                    {m.added} {when(d.created_at)}
                  </div>
                  <span class="row">
                    <button type="button" class="secondary" disabled={busy} onClick={() => void act(async () => testOutcome(await testDevice(d.id)))}>
                      {m.test}
                    </button>
                    <ConfirmButton question={m.reallyRemove(name(d))} onConfirm={() => void act(() => removeDevice(d.id))}>
                      {m.remove}
                    </ConfirmButton>
                  </span>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
