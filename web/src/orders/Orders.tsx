// A player's standing orders on the game page (issue 37): programmed moves the server plays
// for the seat the moment they fit, private like the notes. The pane lists them in words
// (each can be cancelled, a proxy bid's limit changed), offers the game's controls to set
// more, says when the seat may answer a coming decision ahead, and tells what the server
// played for the seat or did with its orders. It reads them again when the game's stream
// says they changed (here, in another tab, or played) and when the game moves on.
import { useEffect, useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api/client';
import { errorText } from '../api/errors';
import { defineMessages, useLang, useMessages } from '../i18n';
import type { GameDetail, GameModule } from '../games/types';
import { newsLine, occasionText } from './words';

const msgs = defineMessages({
  title: { en: 'Standing orders', ja: '事前指示' },
  hint: {
    en: 'The server plays these for you the moment they fit, as your own move. Only you can see them; the others see your move as if you had clicked.',
    ja: '条件が合った瞬間に、サーバーがあなたの手として指します。指示はあなただけが見られます。ほかの人には、あなたがクリックしたのと同じに見えます。',
  },
  none: { en: 'No standing orders.', ja: '事前指示はありません。' },
  cancel: { en: 'Cancel', ja: '取り消す' },
  cancelLabel: { en: (o: string) => `Cancel the order: ${o}`, ja: (o: string) => `指示を取り消す：${o}` },
  limit: { en: 'Limit (cubes)', ja: '上限（キューブ）' },
  change: { en: 'Change', ja: '変更' },
  changeLabel: { en: (o: string) => `Change the limit of: ${o}`, ja: (o: string) => `上限を変更：${o}` },
  newsTitle: { en: 'What the server did for you', ja: 'サーバーが代わりに行ったこと' },
  ahead: { en: 'Answer ahead', ja: '先に答える' },
  loading: { en: 'Loading…', ja: '読み込み中…' },
  setDone: { en: 'Order set.', ja: '指示を設定しました。' },
  cancelled: { en: 'Order cancelled.', ja: '指示を取り消しました。' },
  changed: { en: 'Order changed.', ja: '指示を変更しました。' },
});

type Orders = Schemas['Orders'];
type Order = Schemas['StandingOrder']['order'];

export function OrdersPane({
  detail,
  module,
  changes,
}: {
  detail: GameDetail;
  module: GameModule<never, never, never, never, never> | undefined;
  changes: number;
}) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const [orders, setOrders] = useState<Orders | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  // What the last change did, for a screen reader.
  const [said, setSaid] = useState('');
  const [limits, setLimits] = useState<Record<number, string>>({});
  const gameId = detail.id;
  const path = { params: { path: { game_id: gameId } } };

  useEffect(() => {
    let stale = false;
    ok(api.GET('/api/v1/games/{game_id}/orders', path))
      .then((o) => !stale && setOrders(o))
      .catch((err: unknown) => !stale && setError(err));
    return () => {
      stale = true;
    };
    // The game moving on may open an occasion or play an order.
  }, [gameId, changes, detail.version]);

  const change = async (call: () => Promise<Orders>, done: string) => {
    setBusy(true);
    setError(null);
    try {
      setOrders(await call());
      setSaid(done);
    } catch (err) {
      setError(err);
      throw err;
    } finally {
      setBusy(false);
    }
  };
  const set = (order: unknown) =>
    change(() => ok(api.POST('/api/v1/games/{game_id}/orders', { ...path, body: { order: order as Order } })), m.setDone);
  const cancel = (id: number) =>
    change(() => ok(api.DELETE('/api/v1/games/{game_id}/orders/{order_id}', { params: { path: { game_id: gameId, order_id: id } } })), m.cancelled).catch(() => {});
  const edit = (id: number, order: Order) =>
    change(() => ok(api.PUT('/api/v1/games/{game_id}/orders/{order_id}', { params: { path: { game_id: gameId, order_id: id } }, body: { order } })), m.changed).catch(() => {});

  const describe = (order: Order) => (module?.describeOrder ? module.describeOrder(order as never, lang) : JSON.stringify(order));
  const Composer = module?.OrderComposer;
  const news = orders?.news.slice(-6).reverse() ?? [];
  return (
    <section class="orders" aria-labelledby="orders-title" data-testid="orders">
      <h2 id="orders-title">{m.title}</h2>
      <p class="muted">{m.hint}</p>
      {orders?.occasion && (
        <p class="notice" data-testid="orders-occasion">
          <strong>{m.ahead}:</strong> {occasionText(orders.occasion, lang)}
        </p>
      )}
      {error !== null && (
        <p class="error" role="alert" data-testid="orders-error">
          {errorText(error, lang, module?.errorMessages)}
        </p>
      )}
      <p class="visually-hidden" role="status">
        {said}
      </p>
      {orders === null ? (
        <p>{m.loading}</p>
      ) : orders.orders.length === 0 ? (
        <p data-testid="orders-none">{m.none}</p>
      ) : (
        <ul data-testid="orders-list" class="orders-list">
          {orders.orders.map((o) => {
            const words = describe(o.order);
            const proxy = (o.order as { type: string }).type === 'proxy_bid' ? (o.order as { limit: number }) : null;
            return (
              <li key={o.id} data-testid="order-item" data-order-type={(o.order as { type: string }).type}>
                <span>{words}</span>{' '}
                {proxy && (
                  <span class="order-edit">
                    <label>
                      {m.limit}{' '}
                      <input
                        type="number"
                        min={1}
                        value={limits[o.id] ?? String(proxy.limit)}
                        onInput={(e) => setLimits({ ...limits, [o.id]: (e.target as HTMLInputElement).value })}
                      />
                    </label>{' '}
                    <button
                      type="button"
                      class="secondary"
                      disabled={busy}
                      aria-label={m.changeLabel(words)}
                      onClick={() => void edit(o.id, { ...o.order, limit: Number(limits[o.id] ?? proxy.limit) } as Order)}
                    >
                      {m.change}
                    </button>
                  </span>
                )}{' '}
                <button type="button" class="secondary" disabled={busy} aria-label={m.cancelLabel(words)} onClick={() => void cancel(o.id)}>
                  {m.cancel}
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {Composer && detail.view && detail.your_seat !== null && detail.your_seat !== undefined && (
        <Composer detail={detail} view={detail.view as never} mySeat={detail.your_seat} set={(o) => set(o)} busy={busy} />
      )}
      {news.length > 0 && (
        <>
          <h3>{m.newsTitle}</h3>
          <ol data-testid="orders-news" class="orders-news">
            {news.map((n, i) => (
              <li key={`${n.version}-${i}`} data-news-kind={n.kind}>
                {newsLine(detail.kind, n, lang)}
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
