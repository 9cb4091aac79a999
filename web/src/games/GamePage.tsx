// A game's page: loads the caller's view, follows the game's stream, and hands the board
// to the game's module. The lobby part (join, start, invite…) is shown while the game is open.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, ok } from '../api/client';
import { follow } from '../api/stream';
import { defineMessages, useLang, useMessages } from '../i18n';
import { useSession } from '../session';
import { gameModule } from './registry';
import type { GameDetail } from './types';

const msgs = defineMessages({
  loading: { en: 'Loading…', ja: '読み込み中…' },
  notFound: {
    en: 'There is no such game, or it is private and you are not invited.',
    ja: 'このゲームは存在しないか、招待されていない非公開のゲームです。',
  },
  join: { en: 'Join', ja: '参加する' },
  leave: { en: 'Leave', ja: '退出する' },
  start: { en: 'Start', ja: '開始する' },
  cancel: { en: 'Cancel the game', ja: 'ゲームを中止する' },
  seats: { en: 'Seats', ja: '席' },
  waiting: { en: 'Waiting for players', ja: 'プレイヤー募集中' },
  live: { en: 'Live', ja: 'ライブ' },
  reconnecting: { en: 'Reconnecting…', ja: '再接続中…' },
});

export function newKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export function GamePage({ id }: { id: string }) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const { user } = useSession();
  const [detail, setDetail] = useState<GameDetail | null>(null);
  const [missing, setMissing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [connected, setConnected] = useState(false);
  const reloading = useRef(false);

  const load = useCallback(async () => {
    if (reloading.current) return;
    reloading.current = true;
    try {
      setDetail(await ok(api.GET('/api/v1/games/{game_id}', { params: { path: { game_id: id } } })));
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) setMissing(true);
      else setError(err instanceof Error ? err.message : String(err));
    } finally {
      reloading.current = false;
    }
  }, [id]);

  useEffect(() => {
    if (user === undefined) return;
    void load();
    if (!user) return;
    return follow(`/api/v1/games/${id}/stream`, {
      onMessage: (message) => {
        if (message.event === 'snapshot') setDetail(JSON.parse(message.data) as GameDetail);
        else if (message.event === 'event') void load();
      },
      onConnected: setConnected,
    });
  }, [id, user, load]);

  const run = async (call: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await call();
      await load();
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) await load();
      setError(err instanceof Error ? err.message : String(err));
      throw err;
    } finally {
      setBusy(false);
    }
  };

  if (missing) return <p role="alert">{m.notFound}</p>;
  if (!detail) return <p>{m.loading}</p>;
  const module = gameModule(detail.kind);
  const path = { params: { path: { game_id: id } } };
  const mySeat = detail.your_seat ?? null;
  const seatName = (seat: number) => detail.seats.find((s) => s.seat === seat)?.username ?? `#${seat + 1}`;
  const act = (action: unknown) =>
    run(() =>
      ok(
        api.POST('/api/v1/games/{game_id}/actions', {
          ...path,
          params: { ...path.params, header: { 'Idempotency-Key': newKey() } },
          body: { action: action as never, version: detail.version },
        } as never),
      ),
    );
  const quiet = (call: () => Promise<unknown>) => () => void run(call).catch(() => {});
  return (
    <article class="game">
      <h1>
        {module?.name[lang] ?? detail.kind}{' '}
        <small aria-live="polite">{user ? (connected ? m.live : m.reconnecting) : ''}</small>
      </h1>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {detail.status === 'open' && (
        <section aria-label={m.waiting}>
          <h2>{m.waiting}</h2>
          <p>
            {m.seats}: {detail.seats.map((s) => s.username).join(', ')} ({detail.seats.length}/{detail.seat_count})
          </p>
          {mySeat === null && (
            <button type="button" disabled={busy} onClick={quiet(() => ok(api.POST('/api/v1/games/{game_id}/join', path)))}>
              {m.join}
            </button>
          )}
          {mySeat !== null && mySeat !== 0 && (
            <button type="button" disabled={busy} onClick={quiet(() => ok(api.POST('/api/v1/games/{game_id}/leave', path)))}>
              {m.leave}
            </button>
          )}
          {mySeat === 0 && (
            <>
              <button type="button" disabled={busy} onClick={quiet(() => ok(api.POST('/api/v1/games/{game_id}/start', path)))}>
                {m.start}
              </button>
              <button type="button" disabled={busy} onClick={quiet(() => ok(api.POST('/api/v1/games/{game_id}/cancel', path)))}>
                {m.cancel}
              </button>
            </>
          )}
        </section>
      )}
      {module && detail.view && (
        <module.Board
          detail={detail}
          view={detail.view as never}
          legal={(detail.legal ?? null) as never}
          mySeat={mySeat}
          act={act}
          busy={busy}
          past={detail.at_version !== detail.version}
          seatName={seatName}
        />
      )}
    </article>
  );
}
