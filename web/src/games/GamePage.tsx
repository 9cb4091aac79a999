// A game's page: loads the caller's view, follows the game's stream, and hands the board
// to the game's module. Around the board: the open table (join, start, invite…) before the
// start; whose turn it is with the deadline; "return to my seat"; the log in words; the
// replay slider (`?at=N`); after the end, the result, the seed and its verification.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ApiError, ok } from '../api/client';
import { newKey } from '../api/keys';
import { errorText } from '../api/errors';
import { follow } from '../api/stream';
import { defineMessages, useLang, useMessages } from '../i18n';
import { useSession } from '../session';
import { gameModule, gameName } from './registry';
import type { EventOut, GameDetail, GameUpdate } from './types';
import { OpenTable } from '../components/OpenTable';
import { TurnBar } from '../components/TurnBar';
import { GameLog, useEventLog } from '../components/GameLog';
import { Replay } from '../components/Replay';
import { ExportButton, Finished } from '../components/Finished';
import { Rematch, RematchOf } from '../components/Rematch';
import { GameTags } from '../components/GameTags';
import { SignIn } from '../screens/SignIn';
import { playerName } from '../components/names';
import { ChatAnnouncement, ChatPane, useTotalUnread } from '../chat/Chat';
import { useChat } from '../chat/useChat';
import { NotesPane } from '../notes/Notes';
import { OrdersPane } from '../orders/Orders';
import { UndoPanel } from '../undo/Undo';
import { effectiveAt } from '../undo/log';

const msgs = defineMessages({
  loading: { en: 'Loading…', ja: '読み込み中…' },
  notFound: {
    en: 'There is no such game, or it is private and you are not invited.',
    ja: 'このゲームは存在しないか、招待されていない非公開のゲームです。',
  },
  signIn: { en: 'Sign in to see this game.', ja: 'このゲームを見るにはログインしてください。' },
  live: { en: 'Live', ja: 'ライブ' },
  reconnecting: { en: 'Reconnecting…', ja: '再接続中…' },
  spectator: {
    en: 'You are watching: you see what every spectator sees.',
    ja: '観戦中：観戦者に公開されている情報だけが表示されます。',
  },
  sandbox: {
    en: 'An imported copy of a finished game, to step through; only you can see it.',
    ja: '終了したゲームを取り込んだ検討用のコピーです。あなただけが見られます。',
  },
  conflict: {
    en: 'The game moved on while you were choosing. The board now shows the new position; check your choice and send it again.',
    ja: '選んでいる間にゲームが進みました。盤面は最新の状態です。選択を確認して、もう一度送ってください。',
  },
  abandoned: {
    en: 'You timed out too often, so the bot is playing your seat.',
    ja: '時間切れが続いたため、ボットがあなたの席を操作しています。',
  },
  returnToSeat: { en: 'Return to my seat', ja: '自分の席に戻る' },
  cancelled: { en: 'This game was cancelled before it started.', ja: 'このゲームは開始前に中止されました。' },
  past: { en: 'A past position: no moves can be made here.', ja: '過去の局面です。ここでは操作できません。' },
  history: { en: 'History: the log and the replay', ja: '履歴：ログとリプレイ' },
  phoneViews: { en: 'Board, chat, orders or notes', ja: '盤面・チャット・指示・メモ' },
  boardTab: { en: 'Board', ja: '盤面' },
  chatTab: { en: 'Chat', ja: 'チャット' },
  notesTab: { en: 'Notes', ja: 'メモ' },
  ordersTab: { en: 'Orders', ja: '指示' },
  unread: { en: (n: number) => `${n} unread`, ja: (n: number) => `未読${n}件` },
});

/**
 * After a move of one's own, the controls that were pressed have usually gone (the next
 * decision, or none), which drops the focus to the page's body, ten Tabs from anything. It
 * goes instead to the board's new controls, if the caller still has a decision, else to
 * the line saying whose turn it is. A focus still on a control (it stayed) is left alone.
 * Called once the view after the move is in (`run` awaits a load begun after the move's
 * answer): placed on the view before it, the focus would go with its controls.
 */
function focusAfterMove() {
  requestAnimationFrame(() => {
    if (document.activeElement && document.activeElement !== document.body) return;
    (document.querySelector<HTMLElement>('.board [data-controls]') ?? document.getElementById('turn-status'))?.focus();
  });
}

const NARROW = '(max-width: 48rem)';

/** True on a narrow screen (a phone), where the board and the chat take turns. */
function useNarrow(): boolean {
  const [narrow, setNarrow] = useState(() => window.matchMedia(NARROW).matches);
  useEffect(() => {
    const query = window.matchMedia(NARROW);
    const on = () => setNarrow(query.matches);
    query.addEventListener('change', on);
    return () => query.removeEventListener('change', on);
  }, []);
  return narrow;
}

// The refusal itself is kept, and put in words when shown, so a language switch translates it.
type Message = { kind: 'error'; error: unknown } | { kind: 'notice' } | null;

/**
 * A stream's `view` merged into the game the page holds: the update carries every field a
 * move can change, as `GET /games/{id}` would answer it at that version. Kept only if it is
 * of the same game and not older than what is held (an answer to a load may have crossed it).
 */
function mergeUpdate(old: GameDetail | null, update: GameUpdate): GameDetail | null {
  if (!old || old.id !== update.id || old.kind !== update.kind || update.version < old.version) return old;
  // One game's update merged into the same game's detail (`kind` compared above): its view,
  // legal and outcome are that game's types, which TypeScript cannot follow across the union.
  return { ...old, ...update } as GameDetail;
}

/**
 * The live game: loaded once, then kept current by its stream, whose `view` events carry
 * the game after each change, so a move of another player costs no read of the game. It is
 * read again after a move of one's own (the focus goes to what the move led to), and after
 * a reconnect (a resumed stream sends what was missed, but no `view`).
 */
function useLiveGame(id: string, enabled: boolean, onEvent: (e: EventOut) => void, onOther: (event: string, data: string) => void) {
  const [detail, setDetailState] = useState<GameDetail | null>(null);
  // An answer that crossed a newer one on the way (a load and the stream's snapshot) never
  // takes the page back to an older version.
  const setDetail = useCallback(
    (next: GameDetail) => setDetailState((old) => (old && old.id === next.id && next.version < old.version ? old : next)),
    [],
  );
  const [failure, setFailure] = useState<ApiError | Error | null>(null);
  const [connected, setConnected] = useState(false);
  // Loads are not run side by side; one asked for meanwhile runs once the current ends,
  // so the last call always leads to a load that sees it. Every call's promise settles only
  // after a load begun after the call has ended: a load asked for while another runs waits
  // for the other's next round, so after `await call(); await load()` the page holds what the
  // call did (a move's own view, where the focus then goes), even when a load was running.
  const running = useRef<Promise<void> | null>(null);
  const again = useRef(false);
  const load = useCallback((): Promise<void> => {
    if (running.current) {
      again.current = true;
      return running.current;
    }
    const rounds = (async () => {
      try {
        do {
          again.current = false;
          try {
            setDetail(await ok(api.GET('/api/v1/games/{game_id}', { params: { path: { game_id: id } } })));
            setFailure(null);
          } catch (err) {
            setFailure(err as Error);
          }
        } while (again.current);
      } finally {
        running.current = null;
      }
    })();
    running.current = rounds;
    return rounds;
  }, [id]);

  useEffect(() => {
    if (!enabled) return;
    void load();
    // The first connection begins with a snapshot; a later one resumes without it.
    let connections = 0;
    return follow(`/api/v1/games/${id}/stream`, {
      onMessage: (message) => {
        if (message.event === 'snapshot') setDetail(JSON.parse(message.data) as GameDetail);
        else if (message.event === 'event') onEvent(JSON.parse(message.data) as EventOut);
        else if (message.event === 'view') {
          const update = JSON.parse(message.data) as GameUpdate;
          setDetailState((old) => mergeUpdate(old, update));
        } else onOther(message.event, message.data);
      },
      onConnected: (up) => {
        setConnected(up);
        if (up && connections++ > 0) void load();
      },
      onFailed: () => setConnected(false),
    });
  }, [id, enabled, load, onEvent, onOther]);
  return { detail, failure, connected, load };
}

/** The game as it was at version `at` (null: none asked for). */
function usePastGame(id: string, at: number | null, enabled: boolean) {
  const [past, setPast] = useState<GameDetail | null>(null);
  useEffect(() => {
    if (at === null || !enabled) {
      setPast(null);
      return;
    }
    let stale = false;
    void ok(api.GET('/api/v1/games/{game_id}', { params: { path: { game_id: id }, query: { at } } }))
      .then((d) => !stale && setPast(d))
      .catch(() => !stale && setPast(null));
    return () => {
      stale = true;
    };
  }, [id, at, enabled]);
  return past;
}

/**
 * A game's page. Each game gets a page of its own: going from one game to another (the
 * rematch's link) starts afresh, so nothing of the other game (its chat, its live region,
 * a half-made choice) stays on the screen or is announced as this game's.
 */
export function GamePage({ id }: { id: string }) {
  return <GameScreen key={id} id={id} />;
}

function GameScreen({ id }: { id: string }) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const { user } = useSession();
  const { query, route } = useLocation();
  const at = query.at && /^\d+$/.test(query.at) ? Number(query.at) : null;
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<Message>(null);
  // The version at which the caller's last move was accepted: what followed it is announced.
  const [movedAt, setMovedAt] = useState<number | null>(null);

  const signedIn = user !== undefined && user !== null;
  const log = useEventLog(id, signedIn);
  const onEvent = useCallback((e: EventOut) => log.add([e]), [log.add]);
  // The chat's events (`chat`, `chat_hidden`) come on the game's stream too.
  const chatReceive = useRef<(event: string, data: string) => boolean>(() => false);
  // The game stream's `rematch` events, counted: the rematch section reads the offer again.
  const [rematchChanges, setRematchChanges] = useState(0);
  // Its `note` events: the player's note was saved (here or in another tab).
  const [noteChanges, setNoteChanges] = useState(0);
  // Its `orders` events: the player's standing orders changed, or the server played for them.
  const [orderChanges, setOrderChanges] = useState(0);
  const onOther = useCallback((event: string, data: string) => {
    if (event === 'rematch') setRematchChanges((n) => n + 1);
    else if (event === 'note') setNoteChanges((n) => n + 1);
    else if (event === 'orders') setOrderChanges((n) => n + 1);
    else chatReceive.current(event, data);
  }, []);
  const { detail, failure, connected, load } = useLiveGame(id, signedIn, onEvent, onOther);
  // Which channels one may read changes with the phase and the seats: the overview is read again.
  const chatKey = detail ? `${detail.status}:${detail.seats.map((s) => s.user_id).join(',')}:${detail.your_seat ?? ''}` : '';
  const chat = useChat(id, signedIn && detail !== null && !detail.sandbox, chatKey, user?.id, user?.admin ?? false);
  chatReceive.current = chat.receive;
  const chatUnread = useTotalUnread(chat);
  // On a phone the chat and the notes are tabs beside the board; wider, all are shown.
  const [phoneView, setPhoneView] = useState<'board' | 'chat' | 'notes' | 'orders'>('board');
  const narrow = useNarrow();
  const past = usePastGame(id, at, signedIn);
  // Seats taken before the start come as new snapshots on the stream; while it is not
  // connected, an open game is looked at again every few seconds.
  const open = detail?.status === 'open';
  useEffect(() => {
    if (!open || connected) return;
    const timer = setInterval(() => void load(), 4000);
    return () => clearInterval(timer);
  }, [open, connected, load]);
  // The start is read again. Before it, the stream's snapshot and a read of the same version
  // can arrive in either order, so the page may hold the table as it stood before the
  // player's own join; the `view`s after the start carry no seat, and would keep that (a
  // player shown as a spectator, without controls).
  const wasOpen = useRef(false);
  const status = detail?.status;
  useEffect(() => {
    if (status === 'open') wasOpen.current = true;
    else if (wasOpen.current && status !== undefined) {
      wasOpen.current = false;
      void load();
    }
  }, [status, load]);
  const module = detail ? gameModule(detail.kind) : undefined;

  useEffect(() => {
    if (detail) document.title = `${gameName(detail.kind, lang)} · Kontor`;
  }, [detail?.kind, module, lang]);

  const run = async (call: () => Promise<unknown>) => {
    setBusy(true);
    setMessage(null);
    try {
      await call();
      await load();
    } catch (err) {
      if (err instanceof ApiError && err.code === 'version_conflict') {
        await load();
        setMessage({ kind: 'notice' });
      } else {
        setMessage({ kind: 'error', error: err });
      }
      throw err;
    } finally {
      setBusy(false);
    }
  };

  if (user === null) {
    return (
      <>
        <p class="notice">{m.signIn}</p>
        <SignIn />
      </>
    );
  }
  if (failure instanceof ApiError && (failure.status === 404 || failure.status === 403) && !detail) {
    return (
      <p role="alert" data-testid="game-missing">
        {m.notFound}
      </p>
    );
  }
  if (!detail) {
    return failure ? (
      <p role="alert" class="error">
        {errorText(failure, lang)}
      </p>
    ) : (
      <p>{m.loading}</p>
    );
  }

  const mySeat = detail.your_seat ?? null;
  // An imported sandbox has no seats of its own: its players are named by its first event.
  const startedBy = log.events.find((e) => e.type === 'kontor.game_started')?.data as { seats?: { seat: number; username: string }[] } | undefined;
  const seatName = (seat: number) => {
    const s = detail.seats.find((s) => s.seat === seat);
    return s ? playerName(s) : (startedBy?.seats?.find((s) => s.seat === seat)?.username ?? `#${seat + 1}`);
  };
  const shown = at !== null && past ? past : detail;
  const isPast = shown.at_version !== detail.version;
  const mine = mySeat === null ? undefined : detail.seats.find((s) => s.seat === mySeat);
  const act = (action: unknown) =>
    run(() =>
      ok(
        api.POST('/api/v1/games/{game_id}/actions', {
          params: { path: { game_id: id }, header: { 'Idempotency-Key': newKey() } },
          body: { action: action as never, version: detail.version },
        } as never),
      ),
    ).then(() => {
      setMovedAt(detail.version);
      focusAfterMove();
    });
  // What the caller's move led to, in words (the log's lines from it on), for a screen reader.
  const moveResult =
    movedAt === null || !module
      ? ''
      : log.events
          .filter((e) => e.seq > movedAt && !e.type.startsWith('kontor.'))
          .slice(0, 4)
          .map((e) => module.describe(e.data as never, lang, seatName))
          .join(' ');
  const seek = (n: number | null) => route(n === null ? `/games/${id}` : `/games/${id}?at=${n}`, true);
  const started = detail.status === 'active' || detail.status === 'finished';
  const hasChat = chat.overview !== null && chat.overview.chat !== 'none' && chat.overview.channels.length > 0;
  // Each player keeps a private note (spectators and imported sandboxes have no seat).
  const hasNotes = mySeat !== null && !detail.sandbox;
  // Standing orders, while the game runs (issue 37).
  const hasOrders = mySeat !== null && !detail.sandbox && detail.status === 'active';
  const phoneTabs = (hasChat || hasNotes || hasOrders) && narrow;

  // Beside the board on a wide screen: the chat, whenever the game has one.
  const side = hasChat && !narrow;
  const historyOpen = detail.status === 'finished' || at !== null;

  return (
    <article class="game" data-status={detail.status} data-phone-view={phoneTabs ? phoneView : undefined} data-side={side ? 'chat' : undefined}>
      <div class="game-main">
        <header class="game-head">
          <h1>{gameName(detail.kind, lang)}</h1>
          <GameTags game={detail} />
          <small class="muted" data-testid="connection">
            {connected ? `● ${m.live}` : `○ ${m.reconnecting}`}
          </small>
        </header>
        <div aria-live="assertive" class="messages">
          {message && (
            <p class={message.kind} role={message.kind === 'error' ? 'alert' : 'status'} data-testid="game-message">
              {message.kind === 'error' ? errorText(message.error, lang, module?.errorMessages) : m.conflict}
            </p>
          )}
        </div>
        <p class="visually-hidden" role="status" data-testid="move-result">
          {moveResult}
        </p>
        {hasChat && <ChatAnnouncement chat={chat} mySeat={mySeat} seatName={seatName} />}
        {detail.status === 'open' && <OpenTable detail={detail} user={user ?? null} busy={busy} run={run} />}
        {detail.status === 'cancelled' && <p>{m.cancelled}</p>}
        {started && <TurnBar detail={detail} seatName={seatName} />}
        {!isPast && <UndoPanel detail={detail} events={log.events} module={module} seatName={seatName} busy={busy} lang={lang} run={run} />}
        {mine?.state === 'abandoned' && detail.status === 'active' && (
          <p class="notice">
            {m.abandoned}{' '}
            <button
              type="button"
              disabled={busy}
              onClick={() => void run(() => ok(api.POST('/api/v1/games/{game_id}/return', { params: { path: { game_id: id } } }))).catch(() => {})}
            >
              {m.returnToSeat}
            </button>
          </p>
        )}
        {detail.sandbox ? <p class="muted">{m.sandbox}</p> : started && mySeat === null && <p class="muted">{m.spectator}</p>}
        {detail.status === 'finished' && !isPast && <Finished detail={detail} module={module} seatName={seatName} />}
        {detail.status === 'finished' && !detail.sandbox && !isPast && <Rematch detail={detail} seatName={seatName} changes={rematchChanges} />}
        {started && <RematchOf detail={detail} />}
        {isPast && <p class="notice">{m.past}</p>}
        {phoneTabs && (
          <div role="group" aria-label={m.phoneViews} class="phone-views">
            <button type="button" class="secondary" aria-pressed={phoneView === 'board'} onClick={() => setPhoneView('board')}>
              {m.boardTab}
            </button>
            {hasChat && (
              <button
                type="button"
                class="secondary"
                aria-pressed={phoneView === 'chat'}
                onClick={() => setPhoneView('chat')}
                data-testid="phone-chat"
                aria-label={chatUnread > 0 && phoneView !== 'chat' ? `${m.chatTab}, ${m.unread(chatUnread)}` : undefined}
              >
                {m.chatTab}
                {chatUnread > 0 && phoneView !== 'chat' && (
                  <span class="badge" aria-hidden="true">
                    {chatUnread}
                  </span>
                )}
              </button>
            )}
            {hasOrders && (
              <button type="button" class="secondary" aria-pressed={phoneView === 'orders'} onClick={() => setPhoneView('orders')} data-testid="phone-orders">
                {m.ordersTab}
              </button>
            )}
            {hasNotes && (
              <button type="button" class="secondary" aria-pressed={phoneView === 'notes'} onClick={() => setPhoneView('notes')} data-testid="phone-notes">
                {m.notesTab}
              </button>
            )}
          </div>
        )}
        {module && shown.view && (
          <div class="board" data-testid="board-frame" data-at-version={shown.at_version}>
            <module.Board
              // The live board is never remounted by an update, so a half-made choice
              // survives new versions (and the reload after a 409); each past version is
              // a board of its own.
              key={isPast ? `at-${shown.at_version}` : 'live'}
              detail={shown}
              view={shown.view as never}
              legal={(isPast ? null : (shown.legal ?? null)) as never}
              mySeat={mySeat}
              act={act}
              busy={busy}
              past={isPast}
              seatName={seatName}
              // What the board tells of recent events leaves out moves taken back.
              events={effectiveAt(log.events, isPast ? shown.at_version : null)}
            />
          </div>
        )}
        {hasOrders && !isPast && <OrdersPane detail={detail} module={module} changes={orderChanges} />}
        {hasNotes && <NotesPane gameId={id} changes={noteChanges} />}
        {started && (
          // The log and the replay, out of the way during play until asked for; open on a
          // finished game and on a past position.
          <details class="history" open={historyOpen} data-testid="history">
            <summary>{m.history}</summary>
            {detail.version > 1 && <Replay version={detail.version} at={at !== null && at < detail.version ? at : null} onSeek={seek} />}
            <GameLog events={log.events} module={module} seatName={seatName} mySeat={mySeat} />
            {detail.status === 'active' && <ExportButton id={id} />}
          </details>
        )}
      </div>
      {user && (
        <div class="game-side">
          <ChatPane
            chat={chat}
            detail={detail}
            user={user}
            events={log.events}
            module={module}
            seatName={seatName}
            visible={!narrow || phoneView === 'chat'}
          />
        </div>
      )}
    </article>
  );
}
